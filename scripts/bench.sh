#!/bin/sh
# Build automode as installed (static release) and run the benchmarks.
# Usage: scripts/bench.sh [bench.py options, e.g. --rounds 1000 --mib 1024]
set -eu
cd "$(dirname "$0")/.."
cargo rustc --release --locked --bin automode -- -C target-feature=+crt-static >/dev/null
exec python3 scripts/bench.py --shim shims/bash "$@"
