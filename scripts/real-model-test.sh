#!/usr/bin/env bash
# Opt-in real-model test of automode's classifier: a real llama.cpp server
# (xllamacpp wheel) with SmolLM2-135M on loopback, 1 thread, through both
# wire formats (/v1/chat/completions and /v1/messages).
#
#   AUTOMODE_REAL_MODEL=1 scripts/real-model-test.sh [--rounds N]
#
# Runs `automode check --json --classify` (decides, never runs anything)
# on commands the local tiers send to review, and asserts: every call ends
# in a well-formed verdict within the timeout, and nothing is allowed
# without a valid fast `0` or a valid classifier_decision call. Prints the
# fast-stage latency (p50, p90) with the grammar extra body.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${AUTOMODE_REAL_MODEL:-}" != 1 ]; then
  echo "real-model test skipped (set AUTOMODE_REAL_MODEL=1)"; exit 0
fi
cargo build --release --locked --quiet
# Two slots: the fast and the detailed stage each keep their own prompt
# cache (their prompts differ right after the system message, where the
# template renders the tools), one thread.
URL="$(scripts/real-model-server.sh start --port auto --tools-template --parallel 2 --ctx 16384 --wait 180)"
trap 'scripts/real-model-server.sh stop --port "${URL##*:}" >/dev/null 2>&1 || true' EXIT
# Not exec: the EXIT trap must stop the server.
python3 scripts/real-model/classify_test.py --url "$URL" --bin "$(scripts/target-dir)/release/automode" "$@"
