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

say() { printf '%s\n' "$*"; }
die() {
    printf '%s: %s\n' "$SCRIPT" "$*" >&2
    exit 1
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
        [ "$(id -u)" -eq 0 ] || die "run it as root: sudo make ${SCRIPT%.sh}"
        SYSTEM=1
    fi
}
