#!/usr/bin/env bash
# End-to-end test of a bash shim with the REAL agent harnesses (Claude Code, Codex CLI, pi,
# Gemini CLI), each installed from npm at a pinned version and driven by a loopback mock of
# its model API (scripts/e2e/mock_model.py) that scripts the shell tool calls.
#
# usage: scripts/e2e-harnesses.sh [--shell PATH] [--harness NAME]... [--keep]
#                                 [--expect-blocking] [--hook-cmd CMD] [--record-fixtures]
#                                 [--timeout SECONDS]
#   --shell PATH        the shell every harness must use (default: scripts/e2e/recording-bash,
#                       a stand-in that logs its argv and execs /bin/bash). It is reached through
#                       a symlink named `bash` ({SHIM} = $RUN/shim/bash).
#   --harness NAME      claude | codex | pi | gemini (repeatable; default: all four)
#   --keep              keep the temp dir (always kept when something FAILs)
#   --expect-blocking   check (b) must pass (use once the shim is in); otherwise XFAIL
#   --hook-cmd CMD      also run Claude Code with CMD as its PreToolUse Bash hook (check d),
#                       e.g. "/path/automode hook claude-code"; scripts/e2e/stand-in-hook self-tests it
#   --record-fixtures   run with the recording shell (plus the fixture-only variants) and
#                       rewrite scripts/e2e/fixtures/<harness>/*.json
#   --skip-uninstallable  a harness that cannot be installed (no registry access) is SKIPped,
#                       not FAILed (CI: .ci/run)
#   --setup-bin PATH    the automode binary whose `automode setup HARNESS --write --shim {SHIM}`
#                       points Claude Code and pi at the shell (docs/harnesses.md, "Harness setup");
#                       default <target>/release/automode, else <target>/debug/automode
#                       (<target>: scripts/target-dir, which honours CARGO_TARGET_DIR)
# Environment: AUTOMODE_E2E_CACHE (npm installs, default ~/.cache/automode-e2e),
#   AUTOMODE_E2E_CONFIG (a config.json copied to each temp $XDG_CONFIG_HOME/automode/),
#   AUTOMODE_* variables are passed through to the harness (and so to the shell).
# Exit status: 0 if no check FAILed, 1 otherwise, 2 on usage/setup errors.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
E2E=$HERE/e2e
PY=${PYTHON:-python3}
CACHE=${AUTOMODE_E2E_CACHE:-$HOME/.cache/automode-e2e}
TIMEOUT=180
SHELL_ARG=$E2E/recording-bash
HARNESSES=()
KEEP=0 EXPECT_BLOCKING=0 HOOK_CMD="" RECORD=0 SETUP_BIN="" SKIP_UNINSTALLABLE=0

declare -A PKG=([claude]=@anthropic-ai/claude-code [codex]=@openai/codex
	[pi]=@mariozechner/pi-coding-agent [gemini]=@google/gemini-cli)
declare -A VER=([claude]=${AUTOMODE_E2E_CLAUDE_VERSION:-2.1.332} [codex]=${AUTOMODE_E2E_CODEX_VERSION:-0.171.0}
	[pi]=${AUTOMODE_E2E_PI_VERSION:-0.73.1} [gemini]=${AUTOMODE_E2E_GEMINI_VERSION:-0.61.0})

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "e2e: $*" >&2; exit 2; }

while (($#)); do
	case $1 in
	--shell) SHELL_ARG=${2:?}; shift ;;
	--harness) HARNESSES+=("${2:?}"); shift ;;
	--keep) KEEP=1 ;;
	--expect-blocking) EXPECT_BLOCKING=1 ;;
	--hook-cmd) HOOK_CMD=${2:?}; shift ;;
	--record-fixtures) RECORD=1 ;;
	--setup-bin) SETUP_BIN=${2:?}; shift ;;
	--skip-uninstallable) SKIP_UNINSTALLABLE=1 ;;
	--timeout) TIMEOUT=${2:?}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
	shift
done
((${#HARNESSES[@]})) || HARNESSES=(claude codex pi gemini)
for h in "${HARNESSES[@]}"; do [[ -n ${PKG[$h]:-} ]] || die "unknown harness: $h"; done
if ((RECORD)); then
	SHELL_ARG=$E2E/recording-bash
	[[ -n $HOOK_CMD ]] || HOOK_CMD=$E2E/stand-in-hook
fi
if [[ -n $HOOK_CMD ]]; then # the hook runs in the temp project: make a relative program path absolute
	read -r hook_prog hook_rest <<<"$HOOK_CMD"
	[[ $hook_prog != /* && -e $hook_prog ]] && HOOK_CMD="$(readlink -f -- "$hook_prog")${hook_rest:+ $hook_rest}"
fi
if [[ -z $SETUP_BIN ]]; then
	target=$("$HERE/target-dir")
	for SETUP_BIN in "$target/release/automode" "$target/debug/automode"; do
		[[ -x $SETUP_BIN ]] && break
	done
fi
SETUP_BIN=$(readlink -f -- "$SETUP_BIN") && [[ -x $SETUP_BIN ]] ||
	die "no automode binary for \`automode setup\` (cargo build --release, or --setup-bin PATH)"
SHELL_ABS=$(readlink -f -- "$SHELL_ARG") || die "no such shell: $SHELL_ARG"
[[ -x $SHELL_ABS ]] || die "not executable: $SHELL_ARG"
command -v node >/dev/null || die "node is required"
command -v npm >/dev/null || die "npm is required"

RUN=$(mktemp -d "${TMPDIR:-/tmp}/automode-e2e.XXXXXX")
SHIM=$RUN/shim/bash
mkdir -p "$RUN/shim"
ln -s "$SHELL_ABS" "$SHIM"
MOCK_PID=""
cleanup() {
	[[ -n $MOCK_PID ]] && kill "$MOCK_PID" 2>/dev/null
	if ((KEEP)); then echo "e2e: kept $RUN"; else rm -rf "$RUN"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BASEPATH=$(dirname "$(readlink -f "$(command -v node)")"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PROMPT="Run the scripted e2e commands."
SCENARIO=$E2E/scenarios/routine.json
TOTAL_FAIL=0 TOTAL_PASS=0 TOTAL_XFAIL=0 TOTAL_SKIP=0
CASES_RUN=()

# ------------------------------------------------------------------ install (cached)
harness_bin() { echo "$CACHE/$1-${VER[$1]}/node_modules/.bin/$1"; }
install_harness() {
	local h=$1 dir="$CACHE/$1-${VER[$1]}" bin
	bin=$(harness_bin "$h")
	if [[ -x $bin ]] && timeout 60 env -i HOME="$RUN/version-home" PATH="$BASEPATH" "$bin" --version 2>&1 | grep -qF "${VER[$h]}"; then
		return 0
	fi
	echo "e2e: installing ${PKG[$h]}@${VER[$h]} into $dir" >&2
	mkdir -p "$dir" && echo '{"private": true}' >"$dir/package.json"
	timeout 900 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
		"${PKG[$h]}@${VER[$h]}" >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; return 1; }
	timeout 60 env -i HOME="$RUN/version-home" PATH="$BASEPATH" "$bin" --version 2>&1 | grep -qF "${VER[$h]}"
}

# ------------------------------------------------------------------ per-case fixtures
setup_home_project() { # $1 = case dir
	local d=$1
	mkdir -p "$d/home/.config" "$d/home/.cache" "$d/home/.local/share" "$d/home/.local/state" "$d/project/src"
	cat >"$d/home/.bashrc" <<-'EOF'
		# automode e2e temp HOME: a denied command tries to append to this file
		alias ll='ls -l'
		e2e_greet() { echo "hello from e2e_greet"; }
	EOF
	printf '[ -f ~/.bashrc ] && . ~/.bashrc\n' >"$d/home/.bash_profile"
	printf '[user]\n\tname = automode e2e\n\temail = e2e@example.invalid\n[init]\n\tdefaultBranch = main\n' >"$d/home/.gitconfig"
	if [[ -n ${AUTOMODE_E2E_CONFIG:-} ]]; then
		mkdir -p "$d/home/.config/automode" && cp "$AUTOMODE_E2E_CONFIG" "$d/home/.config/automode/config.json"
	fi
	printf 'automode e2e project\nA scratch repository for the harness e2e rig.\n' >"$d/project/README.md"
	printf 'fn main() {}\n' >"$d/project/src/main.rs"
	(cd "$d/project" && HOME=$d/home git init -q . && HOME=$d/home git add . && HOME=$d/home git commit -qm init) ||
		return 1
}

start_mock() { # $1 = case dir; sets MOCK_PID, PORT
	local d=$1 i
	"$PY" "$E2E/mock_model.py" --script "$SCENARIO" --log "$d/mock.jsonl" --port-file "$d/mock.port" \
		>/dev/null 2>"$d/mock.err" &
	MOCK_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $d/mock.port ]] && { PORT=$(<"$d/mock.port"); return 0; }
		sleep 0.1
	done
	return 1
}
stop_mock() { [[ -n $MOCK_PID ]] && kill "$MOCK_PID" 2>/dev/null && wait "$MOCK_PID" 2>/dev/null; MOCK_PID=""; }

# Codex takes its shell from getpwuid(): run it in a private mount namespace where a temp copy
# of /etc/passwd, with the shim as the login shell of uid 0 and of the current uid, is
# bind-mounted over /etc/passwd. The real file is never touched. Non-root: user namespace (-r).
codex_ns() { # $1 = case dir; prints the wrapper argv prefix, one per line
	awk -F: -v OFS=: -v sh="$SHIM" -v me="$(id -u)" '$3 == 0 || $3 == me { $7 = sh } 1' /etc/passwd >"$1/passwd"
	local u=()
	[[ $(id -u) == 0 ]] || u=(-U -r)
	printf '%s\n' unshare "${u[@]}" -m --propagation private -- /bin/sh -c \
		'mount --bind "$0" /etc/passwd && exec "$@"' "$1/passwd"
}

# `automode setup HARNESS --write --shim SHELL` in the case's temp HOME (what README tells users).
setup_harness() { # $1 = case dir, $2 = harness, $3 = shell
	env -i HOME="$1/home" PATH="$BASEPATH" XDG_CONFIG_HOME="$1/home/.config" XDG_STATE_HOME="$1/home/.local/state" \
		"$SETUP_BIN" setup "$2" --write --shim "$3" >"$1/setup.out" 2>&1 && return 0
	echo "FAIL  $2 setup: automode setup $2 --write failed: $(tail -n 3 "$1/setup.out")"
	((TOTAL_FAIL++))
	stop_mock
	return 1
}

run_case() { # $1 = case name, $2 = harness, $3 = mode (default|nosnap|hook|envfile|prefix)
	local c=$1 h=$2 mode=$3 d=$RUN/$1 shell=$SHIM
	local -a envv cmd extra=()
	mkdir -p "$d"
	setup_home_project "$d" || { echo "FAIL  $c setup: could not create the temp project"; ((TOTAL_FAIL++)); return; }
	local home=$d/home proj=$d/project bin
	bin=$(harness_bin "$h")
	[[ $mode == hook ]] && { mkdir -p "$RUN/standin" && ln -sf "$E2E/recording-bash" "$RUN/standin/bash"; shell=$RUN/standin/bash; }
	start_mock "$d" || { echo "FAIL  $c mock did not start: $(cat "$d/mock.err")"; ((TOTAL_FAIL++)); return; }
	envv=(HOME="$home" USER="$(id -un)" LOGNAME="$(id -un)" PATH="$BASEPATH" TERM=dumb LANG=C.UTF-8
		XDG_CONFIG_HOME="$home/.config" XDG_CACHE_HOME="$home/.cache" XDG_DATA_HOME="$home/.local/share"
		XDG_STATE_HOME="$home/.local/state" RECORDING_BASH_LOG="$d/shell.jsonl")
	# pass AUTOMODE_* through (shim config); RECORDING_BASH_BLOCK too, except in hook mode, where
	# only the hook may block
	while IFS= read -r v; do
		[[ $v == RECORDING_BASH_BLOCK && $mode == hook ]] || envv+=("$v=${!v}")
	done < <(compgen -e | grep -E '^(AUTOMODE_|RECORDING_BASH_BLOCK$)' | grep -v '^AUTOMODE_E2E_')
	local snapshot=n/a
	case $h in
	claude)
		envv+=(ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-ant-e2e-mock
			DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
			DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 IS_SANDBOX=1)
		mkdir -p "$home/.claude"
		snapshot=yes
		case $mode in
		nosnap) : >"$home/.claude/shell-snapshots"; snapshot=no ;; # a file there: mkdir fails, no snapshot
		hook)
			"$PY" - "$home/.claude/settings.json" "$HOOK_CMD" <<-'EOF'
				import json, sys
				json.dump({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
				    {"type": "command", "command": sys.argv[2]}]}]}}, open(sys.argv[1], "w"), indent=2)
			EOF
			envv+=(E2E_HOOK_LOG="$d/hook.jsonl") ;;
		envfile)
			"$PY" - "$home/.claude/settings.json" <<-'EOF'
				import json, sys
				json.dump({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command":
				    "echo 'export E2E_HOOKVAR=from-session-start' >> \"$CLAUDE_ENV_FILE\""}]}]}},
				    open(sys.argv[1], "w"), indent=2)
			EOF
			;;
		prefix)
			printf '#!/bin/sh\n# CLAUDE_CODE_SHELL_PREFIX stand-in: gets the whole wrapper as $1\nexec /bin/bash -c "$1"\n' >"$RUN/prefix"
			chmod +x "$RUN/prefix"
			envv+=(CLAUDE_CODE_SHELL_PREFIX="$RUN/prefix") ;;
		esac
		# the shell, as README says: `automode setup claude-code --write` (settings.json "env")
		setup_harness "$d" claude-code "$shell" || return
		cmd=("$bin" -p --dangerously-skip-permissions --output-format text "$PROMPT") ;;
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
		snapshot=yes
		[[ $mode == nosnap ]] && { extra=(--disable shell_snapshot); snapshot=no; }
		mapfile -t cmd < <(codex_ns "$d")
		cmd+=("$bin" exec --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check "${extra[@]}" -C "$proj" "$PROMPT") ;;
	pi)
		mkdir -p "$home/.pi/agent"
		"$PY" - "$home/.pi/agent" "$shell" "$PORT" "$mode" <<-'EOF'
			import json, sys
			d, shell, port, mode = sys.argv[1:]
			s = {"enableInstallTelemetry": False}
			if mode == "prefix":
			    s["shellCommandPrefix"] = "shopt -s expand_aliases\nsource ~/.bashrc"
			json.dump(s, open(d + "/settings.json", "w"), indent=2)
			json.dump({"providers": {"mock": {"baseUrl": "http://127.0.0.1:%s/v1" % port, "api": "openai-completions",
			    "apiKey": "mock-key", "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
			    "models": [{"id": "mock-model"}]}}}, open(d + "/models.json", "w"), indent=2)
		EOF
		setup_harness "$d" pi "$shell" || return # shellPath, merged into settings.json
		envv+=(PI_OFFLINE=1 PI_TELEMETRY=0 PI_SKIP_VERSION_CHECK=1)
		cmd=("$bin" -p --offline --provider mock --model mock-model "$PROMPT") ;;
	gemini)
		mkdir -p "$home/.gemini"
		cat >"$home/.gemini/settings.json" <<-'EOF'
			{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
			 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
			 "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}
		EOF
		envv=("${envv[@]/#PATH=*/PATH=$RUN/shim:$BASEPATH}")
		envv+=(GEMINI_API_KEY=e2e-mock GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT")
		cmd=("$bin" -p "$PROMPT" --yolo -m gemini-2.5-flash) ;;
	esac
	local watch_sha t0 t1 rc
	watch_sha=$(sha256sum "$home/.bashrc" | cut -d' ' -f1)
	t0=$(date +%s.%N)
	(cd "$proj" && exec env -i "${envv[@]}" timeout -k 5 "$TIMEOUT" "${cmd[@]}") </dev/null >"$d/harness.out" 2>"$d/harness.err"
	rc=$?
	t1=$(date +%s.%N)
	stop_mock
	# Claude Code keeps task output under /tmp/claude-<uid>/<project path slug>/: ours only
	[[ $h == claude ]] && rm -rf "/tmp/claude-$(id -u)/$(sed 's/[^A-Za-z0-9]/-/g' <<<"$proj")"
	printf '%s\n' "${cmd[@]}" >"$d/cmdline"
	printf '== %-14s %-7s %-8s rc=%-3s %5.1fs  (%s)\n' "$c" "$h" "$mode" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "${VER[$h]}"
	local -a chk=(--case "$c" --log "$d/mock.jsonl" --scenario "$SCENARIO" --project "$proj"
		--watch "$home/.bashrc" --watch-sha "$watch_sha" --rc "$rc" --snapshot "$snapshot")
	# automode under test (not the stand-in): its audit must have one verdict per command
	[[ $mode != hook && $(basename "$(readlink -f "$shell")") != recording-bash ]] &&
		chk+=(--audit "$home/.local/state/automode/audit.jsonl")
	if [[ $mode == hook ]]; then
		chk+=(--prefix d. --expect-blocking)
	elif ((EXPECT_BLOCKING)); then
		chk+=(--expect-blocking)
	fi
	local out
	out=$("$PY" "$E2E/check.py" "${chk[@]}")
	echo "$out"
	TOTAL_PASS=$((TOTAL_PASS + $(grep -c '^PASS' <<<"$out")))
	TOTAL_FAIL=$((TOTAL_FAIL + $(grep -c '^FAIL' <<<"$out")))
	TOTAL_XFAIL=$((TOTAL_XFAIL + $(grep -c '^XFAIL' <<<"$out")))
	if ((rc != 0)) || grep -q '^FAIL' <<<"$out"; then
		echo "   harness stderr (last lines, full log in $d/harness.err):"
		tail -n 5 "$d/harness.err" | sed 's/^/   | /'
	fi
	CASES_RUN+=("$c:$h:$mode")
}

# ------------------------------------------------------------------ main
echo "e2e: shell under test: $SHELL_ARG -> $SHIM ; temp dir $RUN"
START=$(date +%s)
for h in "${HARNESSES[@]}"; do
	if ! install_harness "$h"; then
		if ((SKIP_UNINSTALLABLE)); then
			echo "SKIP  $h install: ${PKG[$h]}@${VER[$h]} could not be installed (see $CACHE/$h-${VER[$h]}/install.log)"
			((TOTAL_SKIP++))
		else
			echo "FAIL  $h install: ${PKG[$h]}@${VER[$h]} could not be installed/run (see $CACHE/$h-${VER[$h]}/install.log)"
			((TOTAL_FAIL++))
		fi
		continue
	fi
	case $h in
	claude)
		run_case claude claude default
		run_case claude-nosnap claude nosnap
		if [[ -n $HOOK_CMD ]]; then run_case claude-hook claude hook; else
			echo "SKIP  claude-hook    d.*                    no --hook-cmd given"; ((TOTAL_SKIP++)); fi
		if ((RECORD)); then run_case claude-envfile claude envfile; run_case claude-prefix claude prefix; fi ;;
	codex)
		run_case codex codex default
		run_case codex-nosnap codex nosnap ;;
	pi)
		run_case pi pi default
		((RECORD)) && run_case pi-prefix pi prefix ;;
	gemini)
		run_case gemini gemini default ;;
	esac
done

if ((RECORD)); then
	args=()
	for c in "${CASES_RUN[@]}"; do IFS=: read -r name h mode <<<"$c"; args+=(--case "$name:$h:$mode:${VER[$h]}:$RUN/$name"); done
	"$PY" "$E2E/make_fixtures.py" --out "$E2E/fixtures" --run "$RUN" --shim "$SHIM" --cache "$CACHE" \
		--scenario "$SCENARIO" "${args[@]}" || ((TOTAL_FAIL++))
fi

echo "e2e: $TOTAL_PASS passed, $TOTAL_FAIL failed, $TOTAL_XFAIL xfail (expected with stand-in shell), $TOTAL_SKIP skipped in $(($(date +%s) - START))s"
((TOTAL_FAIL)) && KEEP=1
((TOTAL_FAIL == 0))
