#!/usr/bin/env bash
# Install Trap Companion as a service on Raspberry Pi OS (Debian 12 bookworm, 13 trixie).
#
#   sudo systemd/install.sh --bundle FILE
#       From one file (`make bundle`, docs/raspberry-pi.md): no network at all. The bundle is
#       checked whole first (a changed, missing or unlisted file: refused, named, exit 65; for
#       another CPU or Python: exit 66) and only Debian's own packages come from apt, and not
#       even those when they are there. An owner runs the copy inside the bundle:
#       tar -xOf FILE install.sh | sudo sh -s FILE
#
#   sudo make install                  (runs: sudo bash systemd/install.sh; from the clone)
#       The developer's way: installs the Debian packages, builds a bundle of this checkout for
#       this machine (pip: needs the index or PIP_FIND_LINKS), then installs it as above.
#
# Each version goes into /opt/trap-companion/releases/<version>; the `current` link names the
# one the units run. Running it again installs the new version beside the old and keeps the
# owner's config, cards and journal. A box installed before releases (/opt/trap-companion/venv)
# is moved over: its venv is removed once `current` names the new release.
#
#   bash systemd/install.sh --root DIR (or DESTDIR=DIR)
#       Lays the files out under DIR and stops there: no apt-get, no user, no venv or pip,
#       no systemctl, no boot configuration. For CI and packaging; needs no root.
#
#   --model NAME     the board (pi3, pi4, pi5, zero2w, zerow: firmware/models.toml), which sets
#                    the card reader's port in a new config; by default the board names itself
#                    in MODEL_FILE, and under --root that is DIR/proc/device-tree/model (never
#                    the build host's). A board that cannot be told gets /dev/serial0.
#
# Environment switches for the real install:
#   SKIP_APT=1       the Debian packages are already there (no apt-get)
#   SKIP_FIRMWARE=1  leave /boot/firmware alone (apply it later: trap-companion firmware apply)
#   NO_START=1       enable the service but do not start it now
#   BOOT_DIR=DIR     the boot partition (default /boot/firmware)
#   MODEL_FILE=FILE  where the board names its model (default [DIR]/proc/device-tree/model)
#   PYTHON=python3   the interpreter the venv is made from (and bundle.py runs under)
#   SYSTEMD_RUNNING=DIR  exists when systemd runs (default /run/systemd/system, as sd_booted
#                    checks); without it (an image build, a chroot) the service is enabled only
#
# The paths match companion/pi/paths.py and systemd/trap-companion.service.
set -euo pipefail
umask 022

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=install.sh
CREATE_ROOT=1
# shellcheck source=systemd/common.sh
. "$REPO/systemd/common.sh"
GROUPS_NEEDED=(gpio i2c dialout)
# The developer's way (pip builds the bundle here). A bundle needs python3 only, plus what its
# manifest names (python3-lgpio where PyPI has no lgpio wheel for the Python).
APT_PACKAGES=(python3 python3-venv python3-pip python3-lgpio python3-pil i2c-tools)
BOOT_DIR=${BOOT_DIR:-/boot/firmware}
PYTHON=${PYTHON:-python3}
SYSTEMD_RUNNING=${SYSTEMD_RUNNING:-/run/systemd/system}
MODELS=$REPO/firmware/models.toml

step() { printf '\n==> %s\n' "$*"; }

# usage: models names | models port NAME | models detect MODEL_TEXT
# Answers from firmware/models.toml, the table `trap-companion firmware` reads: every model's
# name, one model's reader port, or the model whose detect prefix matches longest.
models() {
    awk -v mode="$1" -v arg="${2:-}" '
    /^\[models\./ { name = $0; sub(/^\[models\./, "", name); sub(/\].*/, "", name)
                     names = names sep name; sep = ", "; next }
    /^reader_port *=/ { value = $0; sub(/^[^"]*"/, "", value); sub(/".*/, "", value)
                        port[name] = value; next }
    /^detect *=/ { rest = $0
                   while (match(rest, /"[^"]*"/)) {
                       prefix = substr(rest, RSTART + 1, RLENGTH - 2)
                       rest = substr(rest, RSTART + RLENGTH)
                       if (index(arg, prefix) == 1 && length(prefix) > best) {
                           best = length(prefix); found = name
                       }
                   } }
    END { if (mode == "names") print names
          else if (mode == "port") print port[arg]
          else print found }' "$MODELS"
}

MODEL=
BUNDLE=
args=()
while [ $# -gt 0 ]; do
    case $1 in
    --model) MODEL=${2:?--model needs a board name}; shift 2 ;;
    --model=*) MODEL=${1#--model=}; shift ;;
    --bundle) BUNDLE=${2:?--bundle needs a file}; shift 2 ;;
    --bundle=*) BUNDLE=${1#--bundle=}; shift ;;
    *) args+=("$1"); shift ;;
    esac
done
parse_root ${args[@]+"${args[@]}"}
if [ "$SYSTEM" = 0 ]; then
    say "Installing files under $ROOT only (no packages, user, venv or systemctl)."
else
    take_lock install.sh  # an update, a rollback or another install running: exit 4, untouched
fi
BUNDLE_PY=$REPO/companion/release/bundle.py

# 0. A bundle is checked whole before anything is touched: one line naming the file, and
#    bundle.py's status (65 changed/missing/unlisted file or no bundle, 66 another CPU/Python).
if [ -n "$BUNDLE" ]; then
    [ -f "$BUNDLE" ] || die "--bundle $BUNDLE: no such file"
    BUNDLE=$(cd "$(dirname "$BUNDLE")" && pwd)/$(basename "$BUNDLE")
    fits=()
    [ "$SYSTEM" = 0 ] || fits=(--python "$PYTHON")  # under --root: for another machine maybe
    status=0
    version=$("$PYTHON" "$BUNDLE_PY" check "$BUNDLE" ${fits[@]+"${fits[@]}"}) || status=$?
    [ "$status" = 0 ] || exit "$status"
    bundle_apt=$("$PYTHON" "$BUNDLE_PY" field "$BUNDLE" apt)
    say "bundle $(basename "$BUNDLE"): version $version, every file as its manifest says"
fi

# The reader's port depends on the board: on a Pi 5 the header UART is /dev/ttyAMA0.
MODEL_FILE=${MODEL_FILE:-$ROOT/proc/device-tree/model}
if [ -n "$MODEL" ]; then
    reader_port=$(models port "$MODEL")
    if [ -z "$reader_port" ]; then
        say "$SCRIPT: unknown model '$MODEL': one of $(models names)" >&2
        exit 2
    fi
    port_origin="--model $MODEL"
else
    # The braces make the redirection's own error (no such file) go to /dev/null too.
    model_text=$({ tr -d '\0' <"$MODEL_FILE"; } 2>/dev/null || true)
    MODEL=$(models detect "$model_text")
    if [ -n "$MODEL" ]; then
        reader_port=$(models port "$MODEL")
        port_origin="$MODEL_FILE says $model_text"
    else
        reader_port=/dev/serial0
        if [ -n "$model_text" ]; then
            port_origin="$MODEL_FILE says $model_text, not a board in firmware/models.toml"
        else
            port_origin="no $MODEL_FILE to tell the board"
        fi
        port_origin="$port_origin (for a Pi 5: --model pi5)"
    fi
fi
say "card reader on $reader_port: $port_origin"

# 1. Debian packages. From a bundle: only what it cannot carry (python3; python3-lgpio where
#    PyPI has no wheel), and apt only for those missing: no network when they are all there.
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
if [ "$SYSTEM" = 1 ] && [ -n "$BUNDLE" ]; then
    missing=()
    # shellcheck disable=SC2086  # a list of package names
    for package in python3 $bundle_apt; do
        installed "$package" || missing+=("$package")
    done
    if [ ${#missing[@]} = 0 ]; then
        say "Debian packages: all there (python3${bundle_apt:+ $bundle_apt}), apt not needed"
    elif [ "${SKIP_APT:-0}" = 1 ]; then
        die "SKIP_APT=1, and the bundle needs Debian's ${missing[*]}: apt-get install them"
    else
        step "Installing Debian's ${missing[*]} (the bundle carries everything else)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
            { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
                --no-install-recommends "${missing[@]}"; } ||
            die "cannot install ${missing[*]} (no network?): they are Debian's; install them once"
    fi
elif [ "$SYSTEM" = 1 ] && [ "${SKIP_APT:-0}" != 1 ]; then
    step "Installing packages: ${APT_PACKAGES[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
fi

# 1b. The developer's way: a bundle of this checkout for this machine, then as from a bundle
#     (one layout). Built in a temporary folder: the clone is the owner's, not root's.
if [ "$SYSTEM" = 1 ] && [ -z "$BUNDLE" ]; then
    step "Building a bundle of this checkout for this machine"
    built=$(mktemp -d "${TMPDIR:-/tmp}/trap-companion-bundle.XXXXXX")
    trap 'rm -rf "$built"' EXIT
    "$PYTHON" "$REPO/tools/bundle/build.py" --out "$built" >/dev/null ||
        die "building the bundle failed (pip needs the package index, or PIP_FIND_LINKS)"
    BUNDLE=$(ls "$built"/*.tar)
    version=$("$PYTHON" "$BUNDLE_PY" check "$BUNDLE")
    say "built $(basename "$BUNDLE")"
fi

# 2. The service user, in the device groups (the unit adds them too; this helps `sudo -u`).
if [ "$SYSTEM" = 1 ]; then
    step "Creating the user $NAME"
    for group in "${GROUPS_NEEDED[@]}"; do
        getent group "$group" >/dev/null || groupadd --system "$group"
    done
    if ! id "$NAME" >/dev/null 2>&1; then
        useradd --system --user-group --home-dir "$STATE" --no-create-home \
            --shell /usr/sbin/nologin --comment "Trap Companion" "$NAME"
    fi
    usermod --append --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" "$NAME"
fi

# 3. The program: releases/<version> built from the bundle's wheels alone (pip --no-index), a
#    venv with --system-site-packages (Debian's python3-lgpio where the bundle has no lgpio);
#    then `current` names it (renamed into place). The service user cannot read a home
#    directory: nothing runs from the clone.
if [ "$SYSTEM" = 1 ]; then
    step "Installing release $version into $PREFIX/releases/$version"
    status=0
    "$PYTHON" "$BUNDLE_PY" install "$BUNDLE" --opt "$PREFIX" --python "$PYTHON" --switch ||
        status=$?
    [ "$status" = 0 ] || exit "$status"
    if [ -d "$LEGACY_VENV" ] && [ ! -L "$LEGACY_VENV" ]; then
        rm -rf "$LEGACY_VENV"
        say "removed the venv of the install before releases ($LEGACY_VENV)"
    fi
    # Only a Pi needs lgpio (gpiozero's backend there); elsewhere mock pins do without it.
    if [ -n "${model_text:-}$MODEL" ] && ! "$VENV/bin/python" -c 'import lgpio' 2>/dev/null; then
        say "warning: the venv cannot import lgpio; is python3-lgpio installed?" >&2
    fi
fi

# 4. Files: boot-configuration data for `trap-companion firmware`, the guide, the command link.
step "Installing files"
# (A release has its copy already: bundle.py put it in the venv's share/.)
mkdir -p "$ROOT$PREFIX/docs" "$ROOT$(dirname "$LINK")"
if [ "$SYSTEM" = 0 ]; then
    share=$ROOT$VENV/share/$NAME/firmware
    mkdir -p "$share"
    install -m 0644 "$REPO"/firmware/*.txt "$REPO"/firmware/models.toml "$share/"
fi
install -m 0644 "$REPO/docs/raspberry-pi.md" "$ROOT$PREFIX/docs/raspberry-pi.md"
# The uninstaller, where it outlives the program (a box from a bundle has no clone, and an
# uninstall that keeps the data removes $PREFIX): sudo trap-companion-uninstall [--purge]
mkdir -p "$ROOT$KEEP_DIR" "$ROOT$(dirname "$UNINSTALLER")"
install -m 0755 "$REPO/systemd/uninstall.sh" "$ROOT$KEEP_DIR/uninstall.sh"
install -m 0644 "$REPO/systemd/common.sh" "$ROOT$KEEP_DIR/common.sh"
ln -sfn "$KEEP_DIR/uninstall.sh" "$ROOT$UNINSTALLER"
rm -f "$ROOT$PREFIX/uninstall.sh" "$ROOT$PREFIX/common.sh"  # where installs before kept it
say "$UNINSTALLER: the uninstaller (--purge: the config, cards and journal too)"
ln -sfn "$VENV/bin/$NAME" "$ROOT$LINK"
say "$LINK -> $VENV/bin/$NAME"

# 5. The config, only if there is none: an owner's config is never overwritten.
mkdir -p "$ROOT$ETC"
if [ -e "$ROOT$ETC/config.toml" ]; then
    say "kept the existing $ETC/config.toml"
else
    sed -e 's|^pin_factory = .*|pin_factory = "auto"|' \
        -e "s|^port = \"/dev/serial0\"|port = \"$reader_port\"|" \
        "$REPO/companion/data/config.example.toml" >"$ROOT$ETC/config.toml.new"
    chmod 0644 "$ROOT$ETC/config.toml.new"
    mv "$ROOT$ETC/config.toml.new" "$ROOT$ETC/config.toml"
    say "wrote $ETC/config.toml (card reader on $reader_port)"
fi

# 6. The state directory (journal, card registry): created if missing, its contents untouched.
mkdir -p "$ROOT$STATE"
chmod 0750 "$ROOT$STATE"
[ "$SYSTEM" = 0 ] || chown "$NAME:$NAME" "$ROOT$STATE"

# 7. The unit; and the network for phones at the table only while the config turns them on
#    (the drop-in `trap-companion phones enable|disable` writes too: companion/pi/phones.py).
mkdir -p "$ROOT$UNIT_DIR"
install -m 0644 "$REPO/systemd/$NAME.service" "$ROOT$UNIT_DIR/$NAME.service"
say "installed $UNIT_DIR/$NAME.service"
# The phones' server, a unit of its own: started only by the phones' drop-in below.
install -m 0644 "$REPO/systemd/$NAME-phones.service" "$ROOT$UNIT_DIR/$NAME-phones.service"
say "installed $UNIT_DIR/$NAME-phones.service"
phones_dropin=$UNIT_DIR/$NAME.service.d/phones.conf
phones_on=$(awk '
    /^[ \t]*\[/ { section = $0; gsub(/[ \t\[\]]|#.*/, "", section); next }
    section == "phones" && /^[ \t]*enabled[ \t]*=/ {
        value = $0; sub(/^[^=]*=[ \t]*/, "", value); sub(/[ \t]*(#.*)?$/, "", value); on = value }
    END { print (on == "true") ? 1 : 0 }' "$ROOT$ETC/config.toml")
if [ "$phones_on" = 1 ]; then
    mkdir -p "$ROOT$(dirname "$phones_dropin")"
    install -m 0644 "$REPO/companion/data/systemd-phones.conf" "$ROOT$phones_dropin"
    say "installed $phones_dropin: [phones] enabled = true in the config"
elif [ -e "$ROOT$phones_dropin" ]; then
    rm -f "$ROOT$phones_dropin"
    rmdir "$ROOT$(dirname "$phones_dropin")" 2>/dev/null || true
    say "removed $phones_dropin: phones are not enabled in the config"
fi

if [ "$SYSTEM" = 0 ]; then
    say ""
    say "Done: files are under $ROOT. Nothing was started."
    exit 0
fi

# 8. Boot configuration: I2C at 400 kHz, the UART on GPIO 14/15, no serial console.
reboot_needed=0
if [ "${SKIP_FIRMWARE:-0}" != 1 ] && [ -f "$BOOT_DIR/config.txt" ]; then
    step "Boot configuration in $BOOT_DIR"
    before=$(cat "$BOOT_DIR/config.txt" "$BOOT_DIR/cmdline.txt" 2>/dev/null | cksum)
    if [ -n "$MODEL" ]; then board=(--model "$MODEL"); else board=(--model-file "$MODEL_FILE"); fi
    if "$VENV/bin/$NAME" firmware apply --boot "$BOOT_DIR" "${board[@]}"; then
        after=$(cat "$BOOT_DIR/config.txt" "$BOOT_DIR/cmdline.txt" 2>/dev/null | cksum)
        [ "$before" = "$after" ] || reboot_needed=1
    else
        say "warning: the boot configuration was not applied; see docs/raspberry-pi.md" >&2
    fi
    # Pi 3/4/Zero: Bluetooth gave its UART to the reader, so its helper service would fail.
    if [ "$reader_port" = /dev/serial0 ] && systemctl cat hciuart.service >/dev/null 2>&1; then
        systemctl disable --now hciuart.service || true
    fi
fi

# 9. systemd. In an image build or a chroot no systemd runs ("not booted with systemd"): there is
#    nothing to reload or start, and enabling is only the unit's links, which systemctl makes
#    without a manager; the service starts at the image's first boot.
step "Enabling the service"
if [ -d "$SYSTEMD_RUNNING" ]; then
    systemctl daemon-reload
    systemctl enable "$NAME.service"
    # Phones off: their own unit stops (a restart of the box's unit does not stop it).
    [ "$phones_on" = 1 ] || systemctl stop "$NAME-phones.service" 2>/dev/null || true
    if [ "${NO_START:-0}" != 1 ] && ! systemctl restart "$NAME.service" 2>/dev/null; then
        # Installed all the same: say why it does not run (the failed process's own last line,
        # not systemd's; journald may take a moment to have it), and go on to the next steps.
        pid=$(systemctl show -p ExecMainPID --value "$NAME.service" 2>/dev/null || true)
        why=
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            case $pid in '' | 0 | *[!0-9]*) break ;; esac
            why=$(journalctl _PID="$pid" -o cat --no-pager 2>/dev/null | tail -n 1)
            [ -z "$why" ] || break
            sleep 0.3
        done
        start_failed=${why:-see journalctl -u $NAME}
        start_status=$(systemctl show -p ExecMainStatus --value "$NAME.service" 2>/dev/null || true)
    fi
else
    SYSTEMD_OFFLINE=1 systemctl enable "$NAME.service"
    say "systemd is not running here (an image build or a chroot): the service is enabled and"
    say "starts at the next boot."
fi

if [ -n "${start_failed:-}" ]; then
    say ""
    say "The service did not start: $start_failed"
    if [ "${start_status:-}" = 69 ]; then  # HardwareError: no GPIO library here
        say "Off a Pi (no GPIO), set pin_factory = \"mock\" in $ETC/config.toml."
    fi
    say "Then: sudo systemctl restart $NAME (journalctl -u $NAME says more)."
fi
cat <<EOF

Trap Companion is installed.
  config:  $ETC/config.toml     (pins, display, reader; check it: $NAME config check $ETC/config.toml)
  data:    $STATE   (cards and journal; kept by 'sudo $NAME-uninstall', not --purge)
  logs:    journalctl -u $NAME -f
EOF
if [ "$reboot_needed" = 1 ]; then
    say ""
    say "The boot configuration changed: reboot now (sudo reboot), then continue below."
fi
cat <<EOF

Next: test every part of the box with

  sudo systemctl stop $NAME && sudo $NAME check; sudo systemctl start $NAME

It asks for each button, lights the LED, plays a tone and waits for a card.
EOF
