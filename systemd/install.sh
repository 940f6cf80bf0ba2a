#!/usr/bin/env bash
# Install Trap Companion as a service on Raspberry Pi OS Bookworm. From the clone:
#
#   sudo make install                  (runs: sudo bash systemd/install.sh)
#
# Running it again upgrades the program and keeps the owner's config, cards and journal.
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
#   PYTHON=python3   the interpreter the venv is made from
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
args=()
while [ $# -gt 0 ]; do
    case $1 in
    --model) MODEL=${2:?--model needs a board name}; shift 2 ;;
    --model=*) MODEL=${1#--model=}; shift ;;
    *) args+=("$1"); shift ;;
    esac
done
parse_root ${args[@]+"${args[@]}"}
if [ "$SYSTEM" = 0 ]; then
    say "Installing files under $ROOT only (no packages, user, venv or systemctl)."
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

# 1. Debian packages: lgpio must come from Debian (python3-lgpio), hence --system-site-packages.
if [ "$SYSTEM" = 1 ] && [ "${SKIP_APT:-0}" != 1 ]; then
    step "Installing packages: ${APT_PACKAGES[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
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

# 3. The program, in its own venv. Installed from a copy, not the clone: the service user
#    cannot read a home directory.
if [ "$SYSTEM" = 1 ]; then
    step "Installing the program into $VENV"
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv --system-site-packages "$VENV"
    # --prefer-binary: on 32-bit boards PyPI lacks some wheels (Pillow); an older wheel beats
    # compiling for an hour on a Zero W.
    # [web]: aiohttp, so that `trap-companion phones enable` needs no download later (it is
    # imported only when phones are on).
    "$VENV/bin/python" -m pip install --quiet --upgrade --prefer-binary "$REPO[web]"
    "$VENV/bin/python" -c 'import lgpio' 2>/dev/null ||
        say "warning: the venv cannot import lgpio; is python3-lgpio installed?" >&2
fi

# 4. Files: boot-configuration data for `trap-companion firmware`, the guide, the command link.
step "Installing files"
share=$ROOT$VENV/share/$NAME/firmware
mkdir -p "$share" "$ROOT$PREFIX/docs" "$ROOT$(dirname "$LINK")"
install -m 0644 "$REPO"/firmware/*.txt "$REPO"/firmware/models.toml "$share/"
install -m 0644 "$REPO/docs/raspberry-pi.md" "$ROOT$PREFIX/docs/raspberry-pi.md"
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
    if [ "${NO_START:-0}" != 1 ]; then
        systemctl restart "$NAME.service"
    fi
else
    SYSTEMD_OFFLINE=1 systemctl enable "$NAME.service"
    say "systemd is not running here (an image build or a chroot): the service is enabled and"
    say "starts at the next boot."
fi

cat <<EOF

Trap Companion is installed.
  config:  $ETC/config.toml     (pins, display, reader; check it: $NAME config check $ETC/config.toml)
  data:    $STATE   (cards and journal; kept by 'make uninstall')
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
