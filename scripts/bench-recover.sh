#!/bin/sh
# What deletions by recoverability cost (docs/policy.md "Deletions by
# recoverability"): in a 10,000-file git project, an ordinary command
# through the shim against the same in an empty project (nothing is
# scanned per command), and the decision on deleting a 10,000-file tree
# the session made, and two tracked files (two git commands), against
# deleting a build artifact (no lookup).
# Usage: scripts/bench-recover.sh [runs]   (needs farm-bench; builds release)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-40}
cargo build --release --locked --bin automode >/dev/null
root=$(mktemp -d /var/tmp/automode-bench-recover.XXXXXX)
trap 'rm -rf "$root"' EXIT INT TERM
mkdir -p "$root/home" "$root/state" "$root/shims" "$root/empty" "$root/big/build"
cp "$(scripts/target-dir)/release/automode" "$root/shims/automode"
ln -s automode "$root/shims/bash"
export HOME="$root/home" XDG_STATE_HOME="$root/state" AUTOMODE_SESSION=bench
cd "$root/big"
python3 - <<'PY'
import os
for d in range(1000):
    os.makedirs(f"src/d{d}", exist_ok=True)
    for f in range(10):
        open(f"src/d{d}/f{f}.txt", "w").write("x\n")
PY
git init -q && git add . && git -c user.name=b -c user.email=b@example.com commit -qm init
"$root/shims/bash" -c true
python3 - <<'PY'
import os
for d in range(1000):
    os.makedirs(f"made/d{d}", exist_ok=True)
    for f in range(10):
        open(f"made/d{d}/f{f}.txt", "w").write("x\n")
PY
a="$root/shims/automode"
echo "== ordinary command: 10,000-file project vs empty project"
farm-bench -n "$runs" --vs "sh -c 'cd $root/empty && exec $root/shims/bash -c true'" -- sh -c "exec $root/shims/bash -c true"
echo "== check: rm -rf made (10,000 files this session made) vs rm -rf build"
farm-bench -n "$runs" --vs "$a check 'rm -rf build'" -- "$a" check 'rm -rf made'
echo "== check: rm of two tracked unchanged files (git) vs rm -rf build"
farm-bench -n "$runs" --vs "$a check 'rm -rf build'" -- "$a" check 'rm src/d1/f1.txt src/d2/f2.txt'
