#!/bin/sh
# Install automode: build it (statically linked), put the binary in
# $PREFIX/bin, the `bash` and `sh` shims in $PREFIX/share/automode/shims,
# and record the real bash that the shims will run.
#
#   PREFIX=/usr/local install/install.sh      (default PREFIX: $HOME/.local)
#   REAL_BASH=/opt/bash/bin/bash install/install.sh   (pin the real shell)
set -eu

PREFIX=${PREFIX:-$HOME/.local}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin_dir=$PREFIX/bin
share_dir=$PREFIX/share/automode
shim_dir=$share_dir/shims

say() { printf 'install: %s\n' "$*"; }
die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }

command -v cargo >/dev/null 2>&1 || die "cargo is needed to build automode (https://rustup.rs)"

say "building (cargo build --release --locked, linked statically)"
cd "$repo"
# `cargo rustc` passes +crt-static to the final link only; build scripts
# and proc-macros of dependencies cannot be static (README: "Static link").
if ! cargo rustc --release --locked --bin automode -- -C target-feature=+crt-static; then
    say "static link failed; building a dynamically linked binary instead"
    cargo build --release --locked
fi
built=$repo/target/release/automode
[ -x "$built" ] || die "build did not produce $built"

# Find the real bash before our shims can shadow it: PATH (absolute
# entries only), then the usual places; never an automode binary.
is_automode() {
    grep -q 'automode-shim-v1' "$1" 2>/dev/null
}
find_real_bash() {
    if [ -n "${REAL_BASH:-}" ]; then
        printf '%s\n' "$REAL_BASH"
        return 0
    fi
    old_ifs=$IFS
    IFS=:
    for dir in $PATH /usr/bin /bin /usr/local/bin; do
        IFS=$old_ifs
        case $dir in /*) ;; *) continue ;; esac
        cand=$dir/bash
        [ -f "$cand" ] && [ -x "$cand" ] || continue
        is_automode "$cand" && continue
        printf '%s\n' "$cand"
        return 0
    done
    IFS=$old_ifs
    return 1
}
real_bash=$(find_real_bash) || die "no real bash found on PATH, /usr/bin or /bin"
case $real_bash in /*) ;; *) die "REAL_BASH must be an absolute path: $real_bash" ;; esac
[ -x "$real_bash" ] || die "$real_bash is not executable"
is_automode "$real_bash" && die "$real_bash is an automode binary, not a real bash"
"$real_bash" --norc --noprofile -c 'test -n "$BASH_VERSION"' </dev/null \
    || die "$real_bash does not behave like bash"

mkdir -p "$bin_dir" "$shim_dir"
# Replace files atomically (a running shim keeps its old inode).
tmp=$bin_dir/.automode.$$
cp "$built" "$tmp"
chmod 0755 "$tmp"
mv -f "$tmp" "$bin_dir/automode"
for name in bash sh; do
    ln -sfn ../../../bin/automode "$shim_dir/.$name.$$"
    mv -f "$shim_dir/.$name.$$" "$shim_dir/$name"
done
printf '%s\n' "$real_bash" > "$share_dir/.real-shell.$$"
mv -f "$share_dir/.real-shell.$$" "$share_dir/real-shell"

# Smoke test through the installed shim.
out=$("$shim_dir/bash" -c 'echo "$BASH_VERSION"' </dev/null) \
    || die "the installed shim failed to run a command"

say "installed $bin_dir/automode ($("$bin_dir/automode" --version))"
say "shims:      $shim_dir/bash, $shim_dir/sh"
say "real shell: $real_bash (bash $out), recorded in $share_dir/real-shell"
cat <<MSG

Point your agent at the shim (see README, "Harness setup"):
  "$bin_dir/automode" setup HARNESS [--write]   (claude-code, codex, pi, gemini, opencode)
prints (and with --write, merges into the harness's settings) what each needs:
  any harness that looks up bash on PATH (Gemini CLI, opencode without SHELL):
      export PATH="$shim_dir:\$PATH"
  harnesses that use \$SHELL (opencode, aider):
      export SHELL="$shim_dir/bash"
  Claude Code (or "env": {"CLAUDE_CODE_SHELL": …} in ~/.claude/settings.json):
      export CLAUDE_CODE_SHELL="$shim_dir/bash"
  Codex CLI (uses the login shell from /etc/passwd):
      chsh -s "$shim_dir/bash" <agent-user>     (or set it in the container's /etc/passwd)
  pi (~/.pi/agent/settings.json):
      { "shellPath": "$shim_dir/bash" }
Check it:  "$shim_dir/bash" -c 'echo hello from automode'
MSG
