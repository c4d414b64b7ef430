#!/bin/sh
# Build automode as installed (static release) and run the benchmarks.
# Usage: scripts/bench.sh [bench.py options, e.g. --rounds 1000 --mib 1024]
#        scripts/bench.sh --network [bench_network.py options]: the network
#        wall's filter (per connection, throughput)
#        scripts/bench.sh --checkpoint [bench_checkpoint.py options]: what a
#        checkpoint adds to a command on a 10,000-file project
#        scripts/bench.sh --phases [--rounds N]: where the shim's start goes,
#        phase by phase (bench_phases.py)
#        scripts/bench.sh --launcher [ROUNDS]: what a command's own namespaces
#        cost from a launcher already confined, and joining ones made
#        ahead (launcher-experiment.c)
#        scripts/bench.sh --floor [ROUNDS]: what any process's start costs
#        here (one CPUID; a static glibc program against a bare exit)
#        scripts/bench.sh --ab OTHER [--rounds N]: this tree's build against
#        another automode binary, pair by pair (bench_ab.py)
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = --floor ]; then
    dir=$(mktemp -d "${TMPDIR:-/tmp}/automode-floor.XXXXXX")
    trap 'rm -rf "$dir"' EXIT INT TERM
    cc -O2 -Wall -o "$dir/floor" scripts/startup-floor.c
    printf 'int main(void) { return 0; }\n' > "$dir/nop.c"
    cc -O2 -static -o "$dir/nop" "$dir/nop.c"
    printf '.globl _start\n_start:\n mov $60, %%eax\n xor %%edi, %%edi\n syscall\n' > "$dir/exit.s"
    cc -nostdlib -static -o "$dir/exit" "$dir/exit.s"
    "$dir/floor" "${2:-400}" "$dir/nop" "$dir/exit"
    exit
fi
if [ "${1:-}" = --launcher ]; then
    out=$(mktemp "${TMPDIR:-/tmp}/automode-launcher.XXXXXX")
    trap 'rm -f "$out"' EXIT INT TERM
    cc -O2 -Wall -o "$out" scripts/launcher-experiment.c
    "$out" "${2:-300}"
    exit
fi
cargo rustc --release --locked --bin automode -- -C target-feature=+crt-static -C relocation-model=static >/dev/null
# Time the binary as install/install.sh places it: a copy with a `bash`
# link next to it. (The linker's own output file starts ~0.1 ms slower
# here than a copy of it: its page cache is built from small writes.)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/automode-bench-bin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$(scripts/target-dir)/release/automode" "$tmp/automode"
ln -s automode "$tmp/bash"
if [ "${1:-}" = --network ]; then
    shift
    python3 scripts/bench_network.py --shim "$tmp/bash" "$@"
elif [ "${1:-}" = --ab ]; then
    shift
    other=$1
    shift
    python3 scripts/bench_ab.py "$tmp/automode" "$other" "$@"
elif [ "${1:-}" = --phases ]; then
    shift
    python3 scripts/bench_phases.py --shim "$tmp/bash" "$@"
elif [ "${1:-}" = --checkpoint ]; then
    shift
    python3 scripts/bench_checkpoint.py --shim "$tmp/bash" "$@"
else
    python3 scripts/bench.py --shim "$tmp/bash" "$@"
fi
