#!/usr/bin/env bash
# Remove the Trap Companion service and program:
#
#   sudo make uninstall             keeps /etc/trap-companion and /var/lib/trap-companion
#   sudo make uninstall PURGE=1     removes them too (config, cards, journal) and the user
#
#   bash systemd/uninstall.sh --root DIR (or DESTDIR=DIR)
#       Removes the files under DIR only; no systemctl, no userdel.
#
# The boot configuration stays: it is harmless, and the owner may use I2C and the UART otherwise.
set -euo pipefail

NAME=trap-companion
PREFIX=/opt/$NAME
VENV=$PREFIX/venv
ETC=/etc/$NAME
STATE=/var/lib/$NAME
UNIT_DIR=/etc/systemd/system
LINK=/usr/local/bin/$NAME
PURGE=${PURGE:-0}

say() { printf '%s\n' "$*"; }
die() {
    printf 'uninstall.sh: %s\n' "$*" >&2
    exit 1
}

ROOT=${DESTDIR:-}
while [ $# -gt 0 ]; do
    case $1 in
    --root) ROOT=${2:?--root needs a directory}; shift 2 ;;
    --root=*) ROOT=${1#--root=}; shift ;;
    -h | --help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) say "uninstall.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
done

if [ -n "$ROOT" ]; then
    [ "$ROOT" != / ] || die "--root / is the real system: run without --root (as root)"
    [ -d "$ROOT" ] || die "$ROOT is not a directory"
    ROOT=$(cd "$ROOT" && pwd)
    SYSTEM=0
else
    [ "$(id -u)" -eq 0 ] || die "run it as root: sudo make uninstall"
    SYSTEM=1
fi

if [ "$SYSTEM" = 1 ]; then
    systemctl disable --now "$NAME.service" 2>/dev/null || true
fi
rm -f "$ROOT$UNIT_DIR/$NAME.service"
if [ "$SYSTEM" = 1 ]; then
    systemctl daemon-reload
    systemctl reset-failed "$NAME.service" 2>/dev/null || true
fi
say "removed the service"

if [ -L "$ROOT$LINK" ] && [ "$(readlink "$ROOT$LINK")" = "$VENV/bin/$NAME" ]; then
    rm -f "$ROOT$LINK"
fi
rm -rf "$ROOT$PREFIX"
say "removed $PREFIX"

if [ "$PURGE" = 1 ]; then
    # Drop-ins from `systemctl edit` are the owner's too: they go with the purge.
    rm -rf "$ROOT$UNIT_DIR/$NAME.service.d" "$ROOT$ETC" "$ROOT$STATE"
    if [ "$SYSTEM" = 1 ] && id "$NAME" >/dev/null 2>&1; then
        userdel "$NAME"
    fi
    say "removed $ETC, $STATE and the user $NAME"
else
    say "kept $ETC (config) and $STATE (cards, journal): 'sudo make uninstall PURGE=1' removes them"
fi
say "The boot configuration stays; to undo it, delete the lines between the trap-companion"
say "markers in /boot/firmware/config.txt (the file before each change: config.txt.trap-companion.bak)."
