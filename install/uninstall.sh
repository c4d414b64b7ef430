#!/bin/sh
# Remove what install/install.sh installed under $PREFIX (default
# $HOME/.local). Leaves your config and state ($XDG_CONFIG_HOME/automode,
# $XDG_STATE_HOME/automode) unless --purge is given.
set -eu

PREFIX=${PREFIX:-$HOME/.local}
purge=no
[ "${1:-}" = "--purge" ] && purge=yes

say() { printf 'uninstall: %s\n' "$*"; }

for f in "$PREFIX/share/automode/shims/bash" "$PREFIX/share/automode/shims/sh" \
         "$PREFIX/share/automode/real-shell" "$PREFIX/bin/automode"; do
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
say "done; remove the shims directory from PATH, SHELL, CLAUDE_CODE_SHELL, pi's shellPath or /etc/passwd if you set it there"
