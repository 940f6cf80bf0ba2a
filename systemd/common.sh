# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the caller
# Shared by install.sh and uninstall.sh (sourced, not run): the paths, messages and the
# --root/DESTDIR handling. The paths match companion/pi/paths.py and trap-companion.service.
# The sourcing script sets SCRIPT (its name) and, for --root, CREATE_ROOT=1 to make the folder.

NAME=trap-companion
PREFIX=/opt/$NAME
# The release the units run: releases/<version>, named by the `current` link (RELEASE-CONTRACT.md).
VENV=$PREFIX/current/venv
# Where installs before releases kept the program (a migrated box has it no more).
LEGACY_VENV=$PREFIX/venv
ETC=/etc/$NAME
STATE=/var/lib/$NAME
UNIT_DIR=/etc/systemd/system
LINK=/usr/local/bin/$NAME
# The uninstaller, where it outlives the program (a box from a bundle has no clone, and an
# uninstall that keeps the data removes $PREFIX): `sudo trap-companion-uninstall [--purge]`.
KEEP_DIR=/usr/local/lib/$NAME
UNINSTALLER=/usr/local/sbin/$NAME-uninstall
# One change to $PREFIX at a time: install, update, rollback, the boot guard, uninstall all take
# this lock (companion/release/lock.py: the same file; /run/lock, so a power cut clears it).
LOCK=/run/lock/$NAME-update.lock
# The status of "another install or update is running" (companion/commands/update.py).
BUSY_STATUS=4

say() { printf '%s\n' "$*"; }
die() {
    printf '%s: %s\n' "$SCRIPT" "$*" >&2
    exit 1
}

# usage: take_lock WHAT -> the lock held until this script ends (on fd 9, which its children
# inherit: what it runs is covered too), its holder written as "PID WHAT"; another holder: its
# name, and exit $BUSY_STATUS with nothing touched.
take_lock() {
    mkdir -p "$(dirname "$LOCK")"
    exec 9<>"$LOCK" || die "cannot open $LOCK"
    if ! flock -n 9; then
        holder=$(head -c 64 "$LOCK" 2>/dev/null | head -n 1)
        pid=${holder%% *}
        what=${holder#"$pid"}
        what=${what# }
        case $pid in
        '' | *[!0-9]*) who="it" ;;
        *) who="process $pid${what:+ ($what)}" ;;
        esac
        printf '%s: another install or update is running (%s holds %s): wait for it to end\n' \
            "$SCRIPT" "$who" "$LOCK" >&2
        exit "$BUSY_STATUS"
    fi
    printf '%s %s\n' "$$" "$1" >"$LOCK"
}

# usage: parse_root "$@"  -> sets ROOT (empty for the real system) and SYSTEM (1 or 0)
parse_root() {
    ROOT=${DESTDIR:-}
    while [ $# -gt 0 ]; do
        case $1 in
        --root) ROOT=${2:?--root needs a directory}; shift 2 ;;
        --root=*) ROOT=${1#--root=}; shift ;;
        -h | --help) sed -n '2,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "$SCRIPT: unknown argument: $1 (try --help)" >&2; exit 2 ;;
        esac
    done
    if [ -n "$ROOT" ]; then
        [ "$ROOT" != / ] || die "--root / is the real system: run without --root (as root)"
        if [ "${CREATE_ROOT:-0}" = 1 ]; then
            mkdir -p "$ROOT"
        fi
        [ -d "$ROOT" ] || die "$ROOT is not a directory"
        ROOT=$(cd "$ROOT" && pwd)
        SYSTEM=0
    else
        [ "$(id -u)" -eq 0 ] || die "run it as root: ${AS_ROOT:-sudo make ${SCRIPT%.sh}}"
        SYSTEM=1
    fi
}
