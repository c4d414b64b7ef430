#!/bin/sh
# Remove what install/install.sh installed under $PREFIX (default
# $HOME/.local). Leaves your config and state ($XDG_CONFIG_HOME/automode,
# $XDG_STATE_HOME/automode) unless --purge is given.
set -eu

PREFIX=${PREFIX:-$HOME/.local}
purge=no
[ "${1:-}" = "--purge" ] && purge=yes

say() { printf 'uninstall: %s\n' "$*"; }

# First take the shim out of every harness `automode setup --write`
# pointed at it (only the keys it added), so none is left pointing at a
# deleted shim.
if [ -x "$PREFIX/bin/automode" ]; then
    for h in claude-code codex pi gemini opencode; do
        if out=$("$PREFIX/bin/automode" setup "$h" --undo 2>&1); then
            case $out in
                *"nothing to undo"*) ;;
                *) printf '%s\n' "$out" | sed 's/^/uninstall: /' ;;
            esac
        else
            say "could not undo the $h setup: $out"
        fi
    done
fi

for f in "$PREFIX/share/automode/shims/bash" "$PREFIX/share/automode/shims/sh" \
         "$PREFIX/share/automode/real-shell" "$PREFIX/bin/automode" \
         "$PREFIX/share/bash-completion/completions/automode" "$PREFIX/share/zsh/site-functions/_automode" \
         "$PREFIX/share/fish/vendor_completions.d/automode.fish" "$PREFIX/share/man/man1/automode.1"; do
    if [ -e "$f" ] || [ -L "$f" ]; then
        rm -f "$f"
        say "removed $f"
    fi
done
rmdir "$PREFIX/share/automode/shims" 2>/dev/null || true
rmdir "$PREFIX/share/automode" 2>/dev/null || true

if [ "$purge" = yes ]; then
    for d in "${XDG_CONFIG_HOME:-$HOME/.config}/automode" "${XDG_STATE_HOME:-$HOME/.local/state}/automode"; do
        if [ -d "$d" ]; then
            rm -rf "$d"
            say "removed $d"
        fi
    done
fi
say "done; remove the shims directory from PATH, SHELL or /etc/passwd where you set it by hand (the harness files that automode setup --write changed are restored; any .before-automode backups it made are kept)"
