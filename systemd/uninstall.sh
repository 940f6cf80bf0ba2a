#!/usr/bin/env bash
# Remove the Trap Companion service and program:
#
#   sudo trap-companion-uninstall           keeps /etc/trap-companion and /var/lib/trap-companion
#   sudo trap-companion-uninstall --purge   removes them too (config, cards, journal) and the user
#
# (installed by install.sh in /usr/local/sbin, which it outlives until the purge; from a clone,
# `sudo make uninstall` and `sudo make uninstall PURGE=1` run this same script).
#
#   bash systemd/uninstall.sh --root DIR (or DESTDIR=DIR)
#       Removes the files under DIR only; no systemctl, no userdel.
#
# The boot configuration stays: it is harmless, and the owner may use I2C and the UART otherwise.
set -euo pipefail

SCRIPT=uninstall.sh
# shellcheck source=systemd/common.sh
# (Run through the link in /usr/local/sbin: common.sh lies beside the script the link names.)
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/common.sh"
PURGE=${PURGE:-0}
AS_ROOT="sudo $NAME-uninstall (from a clone: sudo make uninstall)"

args=()
for arg in "$@"; do
    case $arg in
    --purge) PURGE=1 ;;
    *) args+=("$arg") ;;
    esac
done
parse_root ${args[@]+"${args[@]}"}
[ "$SYSTEM" = 0 ] || take_lock uninstall.sh  # not while an install or update runs: exit 4

if [ "$SYSTEM" = 1 ]; then
    systemctl stop "$NAME-phones.service" 2>/dev/null || true
    systemctl disable --now "$NAME.service" 2>/dev/null || true
fi
rm -f "$ROOT$UNIT_DIR/$NAME.service" "$ROOT$UNIT_DIR/$NAME-phones.service"
# The phones' network drop-in is the program's, not the owner's: it goes with the service.
rm -f "$ROOT$UNIT_DIR/$NAME.service.d/phones.conf"
# So are the update's guard units and its OnFailure= drop-in (companion/release/units.py).
if [ "$SYSTEM" = 1 ]; then
    systemctl disable "$NAME-update-guard.service" 2>/dev/null || true
fi
rm -f "$ROOT$UNIT_DIR/$NAME-update-guard.service" "$ROOT$UNIT_DIR/$NAME-update-rollback.service" \
    "$ROOT$UNIT_DIR/$NAME.service.d/update.conf" \
    "$ROOT$UNIT_DIR/multi-user.target.wants/$NAME-update-guard.service"
rmdir "$ROOT$UNIT_DIR/$NAME.service.d" 2>/dev/null || true
if [ "$SYSTEM" = 1 ]; then
    systemctl daemon-reload
    systemctl reset-failed "$NAME.service" 2>/dev/null || true
fi
say "removed the service"

link_to=$(readlink "$ROOT$LINK" 2>/dev/null || true)
if [ "$link_to" = "$VENV/bin/$NAME" ] || [ "$link_to" = "$LEGACY_VENV/bin/$NAME" ]; then
    rm -f "$ROOT$LINK"
fi
rm -rf "$ROOT$PREFIX"
say "removed $PREFIX"

if [ "$PURGE" = 1 ]; then
    # Drop-ins from `systemctl edit` are the owner's too: they go with the purge.
    rm -rf "$ROOT$UNIT_DIR/$NAME.service.d" "$ROOT$ETC" "$ROOT$STATE"
    say "removed $ETC and $STATE"
    # The uninstaller goes last (bash has this script open: its removal does not cut it short).
    rm -f "$ROOT$UNINSTALLER"
    rm -rf "$ROOT$KEEP_DIR"
    if [ "$SYSTEM" = 0 ]; then
        say "the user $NAME is left alone under --root"
    elif id "$NAME" >/dev/null 2>&1; then
        userdel "$NAME"
        say "removed the user $NAME"
    fi
else
    say "kept $ETC (config) and $STATE (cards, journal): 'sudo $NAME-uninstall --purge' removes them"
fi
say "The boot configuration stays; to undo it, delete the lines between the trap-companion"
say "markers in /boot/firmware/config.txt (the file before each change: config.txt.trap-companion.bak)."
