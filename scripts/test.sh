#!/bin/sh
# The test command (README "Quick start"; .ci/run calls it): installs what
# the tests need when it can, then checks formatting, lints and runs every
# test against the real bash.
set -eu
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }
apt_install() {
    if [ "$(id -u)" = 0 ] && need apt-get; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; }
    else
        echo "test: please install: $*" >&2
        exit 1
    fi
}
need bwrap || apt_install bubblewrap
need python3 || apt_install python3
need ps || apt_install procps
# The sandbox tests: strace (ptrace of the supervisor is refused), a C
# compiler and make (a compiled program, the make smoke test), unshare.
need strace || apt_install strace
need cc || apt_install gcc
need make || apt_install make
need unshare || apt_install util-linux
# The network wall's tests make their own network namespace with ip.
need ip || apt_install iproute2
# The checkpoint tests run `jq . package.json > package.json` for real.
need jq || apt_install jq
# The terminal tests drive the shim in a real tmux.
need tmux || apt_install tmux
# The credentials test: gh reads its own login (`gh auth token`, offline).
need gh || apt_install gh
# The tool smoke tests install from the npm registry (under CI=true a
# missing npm fails them rather than skipping).
need npm || apt_install npm

cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --locked "$@"
# The labelled corpora (tests/data/README.md): exit 1 unless every case
# that must not be allowed is caught.
bin=$(scripts/target-dir)/debug/automode
# The public corpus's labels assume an open network (its network cases
# are review) and no checkpoints (its deletions of existing files are
# review): scored where neither the wall nor a checkpoint stands, by the
# text rules alone.
python3 scripts/score.py --bin "$bin" --network open --checkpoints off
# Our sandbox corpus, with the wall (the default).
python3 scripts/score.py --bin "$bin" --corpus tests/data/decisions-sandbox.jsonl
