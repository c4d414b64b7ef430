#!/usr/bin/env bash
# Re-record the transcripts in this directory's parent with the REAL harnesses (cached by
# scripts/e2e-harnesses.sh under ~/.cache/automode-e2e; run that once first) against a patched copy
# of scripts/e2e/mock_model.py (loopback only). usage: regen.sh [OUT]   (default OUT: a temp dir;
# pass tests/data/transcripts to overwrite the checked-in files)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
export TX=$(mktemp -d "${TMPDIR:-/tmp}/automode-transcripts.XXXXXX")
OUT=${1:-$TX/out}
cp "$ROOT/scripts/e2e/mock_model.py" "$ROOT/scripts/e2e/recording-bash" "$TX/"
patch -s "$TX/mock_model.py" "$HERE/mock_model.patch"
cp "$HERE"/pty_drive.py "$HERE"/scenario.json "$HERE"/steps-*.json "$TX/"
for h in claude codex pi; do
	"$HERE/run.sh" "$TX/final-$h" "$h"
	TUI=1 "$HERE/run.sh" "$TX/final-$h-tui" "$h"
done
python3 "$HERE/sanitize.py" "$TX" "$OUT"
echo "regen: work dir $TX, transcripts in $OUT"
