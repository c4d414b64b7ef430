#!/usr/bin/env bash
# usage: run.sh OUTDIR HARNESS [PROJECT-SUBPATH]   (claude | codex | pi)
# Runs HARNESS against the patched mock in $TX: -p/exec twice (prompt 1, then continue/resume with
# prompt 2), or with TUI=1 once, interactively in a pty (steps-<harness>.json). Everything lives in OUTDIR.
# Knobs: TUI=1, ONE_RUN=1, SCEN=file, STEPS=file, RUN_SUB=dir, RUN_LINK=path, EXTRA_ENV="K=V ...".
set -uo pipefail
OUT=${1:?}; h=${2:?}; PSUB=${3:-project}
TX=${TX:?set TX to the work dir prepared by regen.sh}
CACHE=${AUTOMODE_E2E_CACHE:-$HOME/.cache/automode-e2e}
declare -A VER=([claude]=${AUTOMODE_E2E_CLAUDE_VERSION:-2.1.332} [codex]=${AUTOMODE_E2E_CODEX_VERSION:-0.171.0}
	[pi]=${AUTOMODE_E2E_PI_VERSION:-0.73.1})
bin=$CACHE/$h-${VER[$h]}/node_modules/.bin/$h
P1="Please list the files and then delete build/ only"
P2="Thanks! Now check that build/ is gone and show me git status, but do not push anything."
d=$OUT; rm -rf "$d"; mkdir -p "$d/shim"
ln -s "$TX/recording-bash" "$d/shim/bash"; SHIM=$d/shim/bash
home=$d/home; proj=$home/$PSUB
mkdir -p "$home/.config" "$home/.cache" "$home/.local/share" "$home/.local/state" "$proj/src" "$proj/build"
printf 'alias ll="ls -l"\n' >"$home/.bashrc"
printf '[ -f ~/.bashrc ] && . ~/.bashrc\n' >"$home/.bash_profile"
printf '[user]\n\tname = dev\n\temail = dev@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$home/.gitconfig"
printf 'demo project\n' >"$proj/README.md"
printf 'fn main() {}\n' >"$proj/src/main.rs"
printf 'build/\n' >"$proj/.gitignore"
printf 'object\n' >"$proj/build/out.o"
printf '# Agent notes\nAlways run tests with `cargo test`.\n' >"$proj/AGENTS.md"
printf '# Claude notes\nAlways run tests with `cargo test`.\n' >"$proj/CLAUDE.md"
(cd "$proj" && HOME=$home git init -q . && HOME=$home git add . && HOME=$home git commit -qm init) || exit 1
RUN_CWD=${RUN_CWD:-$proj}
[[ -n ${RUN_LINK:-} ]] && { ln -sfn "$proj" "$RUN_LINK"; RUN_CWD=$RUN_LINK; }
[[ -n ${RUN_SUB:-} ]] && RUN_CWD=$proj/$RUN_SUB
python3 $TX/mock_model.py --script $TX/${SCEN:-scenario.json} --log "$d/mock.jsonl" --port-file "$d/mock.port" >/dev/null 2>"$d/mock.err" &
MOCK=$!
trap 'kill $MOCK 2>/dev/null' EXIT
for i in $(seq 100); do [[ -s $d/mock.port ]] && break; sleep 0.1; done
PORT=$(<"$d/mock.port")
BASEPATH=$(dirname "$(readlink -f "$(command -v node)")"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
envv=(HOME="$home" USER="$(id -un)" LOGNAME="$(id -un)" PATH="$BASEPATH" TERM=dumb LANG=C.UTF-8
  XDG_CONFIG_HOME="$home/.config" XDG_CACHE_HOME="$home/.cache" XDG_DATA_HOME="$home/.local/share"
  XDG_STATE_HOME="$home/.local/state" RECORDING_BASH_LOG="$d/shell.jsonl")
pre=()
case $h in
claude)
  envv+=(ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-ant-e2e-mock
    CLAUDE_CODE_SHELL="$SHIM" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
    DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 IS_SANDBOX=1)
  mkdir -p "$home/.claude"
  c1=("$bin" -p --dangerously-skip-permissions --output-format text "$P1")
  c2=("$bin" -p --continue --dangerously-skip-permissions --output-format text "$P2")
  if [[ -n ${TUI:-} ]]; then
    python3 - "$home/.claude.json" "$RUN_CWD" <<-'EOF2'
	import json, sys, os
	cwd = os.path.realpath(sys.argv[2])
	json.dump({"hasCompletedOnboarding": True, "theme": "dark", "bypassPermissionsModeAccepted": True, "customApiKeyResponses": {"approved": ["sk-ant-e2e-mock", "e2e-mock"], "rejected": []},
	    "projects": {cwd: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}, open(sys.argv[1], "w"))
	EOF2
    printf '{"skipDangerousModePermissionPrompt": true}\n' > "$home/.claude/settings.json"
    c1=(python3 $TX/pty_drive.py "$d/tui.log" "$TX/${STEPS:-steps-claude.json}" -- "$bin" --dangerously-skip-permissions)
  fi ;;
codex)
  mkdir -p "$home/.codex"
  cat >"$home/.codex/config.toml" <<-EOF
	model = "mock-model"
	model_provider = "mock"
	check_for_update_on_startup = false
	[model_providers.mock]
	name = "e2e mock"
	base_url = "http://127.0.0.1:$PORT/v1"
	env_key = "E2E_MOCK_API_KEY"
	wire_api = "responses"
	request_max_retries = 0
	stream_max_retries = 0
	[analytics]
	enabled = false
	EOF
  envv+=(CODEX_HOME="$home/.codex" E2E_MOCK_API_KEY=mock)
  awk -F: -v OFS=: -v sh="$SHIM" -v me="$(id -u)" '$3 == 0 || $3 == me { $7 = sh } 1' /etc/passwd >"$d/passwd"
  pre=(unshare -m --propagation private -- /bin/sh -c 'mount --bind "$0" /etc/passwd && exec "$@"' "$d/passwd")
  c1=("$bin" exec --dangerously-bypass-approvals-and-sandbox -C "$RUN_CWD" "$P1")
  c2=("$bin" exec resume --last --dangerously-bypass-approvals-and-sandbox "$P2")
  if [[ -n ${TUI:-} ]]; then
    printf '[features]\ndaemon_auto_start = false\n[projects."%s"]\ntrust_level = "trusted"\n[notice]\nhide_full_access_warning = true\n' "$(realpath "$RUN_CWD")" >> "$home/.codex/config.toml"
    c1=(python3 $TX/pty_drive.py "$d/tui.log" "$TX/${STEPS:-steps-codex.json}" -- "$bin" --dangerously-bypass-approvals-and-sandbox -C "$RUN_CWD")
  fi ;;
pi)
  mkdir -p "$home/.pi/agent"
  python3 - "$home/.pi/agent" "$SHIM" "$PORT" <<-'EOF'
	import json, sys
	d, shell, port = sys.argv[1:]
	json.dump({"shellPath": shell, "enableInstallTelemetry": False}, open(d + "/settings.json", "w"), indent=2)
	json.dump({"providers": {"mock": {"baseUrl": "http://127.0.0.1:%s/v1" % port, "api": "openai-completions",
	    "apiKey": "mock-key", "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
	    "models": [{"id": "mock-model"}]}}}, open(d + "/models.json", "w"), indent=2)
	EOF
  envv+=(PI_OFFLINE=1 PI_TELEMETRY=0 PI_SKIP_VERSION_CHECK=1)
  c1=("$bin" -p --offline --provider mock --model mock-model "$P1")
  c2=("$bin" -p --continue --offline --provider mock --model mock-model "$P2")
  [[ -n ${TUI:-} ]] && c1=(python3 $TX/pty_drive.py "$d/tui.log" "$TX/${STEPS:-steps-pi.json}" -- "$bin" --offline --provider mock --model mock-model) ;;
esac
n=0
runs=(c1 c2); [[ -n ${ONE_RUN:-}${TUI:-} ]] && runs=(c1)
[[ -n ${TUI:-} ]] && envv+=(TERM=xterm-256color) # codex refuses TERM=dumb
envv+=(${EXTRA_ENV:-})
for which in "${runs[@]}"; do
  n=$((n+1))
  declare -n cmd=$which
  (cd "$RUN_CWD" && export PWD="$RUN_CWD" && exec env -i PWD="$RUN_CWD" "${envv[@]}" timeout -k 5 180 "${pre[@]}" "${cmd[@]}") </dev/null >"$d/out$n" 2>"$d/err$n"
  echo "$h run$n rc=$?"
done
# the Codex TUI may leave an app-server daemon running from $home/.codex/packages: stop ours (by pid)
for p in /proc/[0-9]*; do
  [[ $(readlink "$p/exe" 2>/dev/null) == "$d"/* ]] && { echo "run.sh: stopping leftover ${p#/proc/}"; kill "${p#/proc/}"; }
done
if [[ $h == claude ]]; then rm -rf "/tmp/claude-$(id -u)/$(sed 's/[^A-Za-z0-9]/-/g' <<<"$proj")"; fi

