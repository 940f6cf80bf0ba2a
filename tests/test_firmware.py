"""`trap-companion firmware apply` on copies of the boot files Raspberry Pi OS Bookworm ships."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.commands import firmware as command
from companion.errors import CompanionError, DataError, HardwareError
from companion.pi import firmware

# config.txt as Bookworm's 64-bit images ship it (the same file on every model).
BOOKWORM_CONFIG = """\
# For more options and information see
# http://rptl.io/configtxt
# Some settings may impact device functionality. See link above for details

# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on

# Enable audio (loads snd_bcm2835)
dtparam=audio=on

# Additional overlays and parameters are documented
# /boot/firmware/overlays/README

# Automatically load overlays for detected cameras
camera_auto_detect=1

# Automatically load overlays for detected DSI displays
display_auto_detect=1

# Automatically load initramfs files, if found
auto_initramfs=1

# Enable DRM VC4 V3D driver
dtoverlay=vc4-kms-v3d
max_framebuffers=2

# Don't have the firmware create an initial video= setting in cmdline.txt.
# Use the kernel's default instead.
disable_fw_kms_setup=1

# Run in 64-bit mode
arm_64bit=1

# Disable compensation for displays with overscan
disable_overscan=1

# Run as fast as firmware / board allows
arm_boost=1

[cm4]
# Enable host mode on the 2711 built-in XHCI USB controller.
# This line should be removed if the legacy DWC2 controller is required
# (e.g. for USB device mode) or if USB support is not required.
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host

[all]
"""
# The 32-bit Lite image a Zero 2 W often runs: no arm_64bit, and an owner who has been editing.
ZERO_LITE_CONFIG = (
    BOOKWORM_CONFIG.replace("# Run in 64-bit mode\narm_64bit=1\n\n", "")
    + "# mine: a fan on GPIO 12\ndtoverlay=gpio-fan,gpiopin=12,temp=60000\n"
)
# An older image, ending inside a model section, with no newline at the end.
PI3_CONFIG = BOOKWORM_CONFIG.split("[cm5]")[0].rstrip("\n") + "\n[pi4]\nhdmi_enable_4kp60=1"

DESKTOP_CMDLINE = (
    "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
    "fsck.repair=yes rootwait quiet splash plymouth.ignore-serial-consoles "
    "cfg80211.ieee80211_regdom=GB\n"
)
LITE_CMDLINE = (
    "console=serial0,115200 console=tty1 root=PARTUUID=9c3b7d2a-02 rootfstype=ext4 "
    "fsck.repair=yes rootwait cfg80211.ieee80211_regdom=DE\n"
)

BOARDS = {
    # model: (/proc/device-tree/model, config.txt, cmdline.txt)
    "pi3": ("Raspberry Pi 3 Model B Plus Rev 1.3", PI3_CONFIG, LITE_CMDLINE),
    "pi4": ("Raspberry Pi 4 Model B Rev 1.5", BOOKWORM_CONFIG, DESKTOP_CMDLINE),
    "pi5": ("Raspberry Pi 5 Model B Rev 1.0", BOOKWORM_CONFIG, DESKTOP_CMDLINE),
    "zero2w": ("Raspberry Pi Zero 2 W Rev 1.0", ZERO_LITE_CONFIG, LITE_CMDLINE),
    "zerow": ("Raspberry Pi Zero W Rev 1.1", ZERO_LITE_CONFIG, LITE_CMDLINE),
}
I2C = "dtparam=i2c_arm=on,i2c_arm_baudrate=400000"
UART_PI5 = ["dtparam=uart0=on"]
UART_OTHERS = ["enable_uart=1", "dtoverlay=disable-bt"]


def make_boot(tmp_path: Path, model: str) -> tuple[Path, Path]:
    name, config, cmdline = BOARDS[model]
    boot = tmp_path / "boot" / "firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(config)
    (boot / "cmdline.txt").write_text(cmdline)
    (boot / "overlays").mkdir()
    model_file = tmp_path / "model"
    model_file.write_bytes(name.encode() + b"\0")
    return boot, model_file


def cli(*argv: str) -> int:
    """The command as cli.main runs it: parse, run, map a CompanionError to its status."""
    parser = argparse.ArgumentParser(prog="trap-companion")
    command.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CompanionError as err:
        print(f"trap-companion: {err}")
        return err.exit_status


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def block_of(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[lines.index(firmware.BEGIN) : lines.index(firmware.END) + 1]


def outside_block(text: str) -> str:
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == firmware.BEGIN)
    stop = next(i for i, line in enumerate(lines) if line.strip() == firmware.END)
    return "".join(lines[:start] + lines[stop + 1 :])


@pytest.mark.parametrize("model", sorted(BOARDS))
def test_apply_configures_each_model_and_keeps_everything_else(
    tmp_path: Path, model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    boot, model_file = make_boot(tmp_path, model)
    _, config_before, cmdline_before = BOARDS[model]

    assert cli("firmware", "apply", "--boot", str(boot), "--model-file", str(model_file)) == 0
    assert f"model: {model}" in capsys.readouterr().out

    config = (boot / "config.txt").read_text()
    block = block_of(config)
    settings = [line for line in block if not line.startswith("#")]
    assert settings == ["[all]", I2C, *(UART_PI5 if model == "pi5" else UART_OTHERS)]
    # Every line the owner had is still there, in order, byte for byte.
    assert outside_block(config).rstrip("\n") == config_before.rstrip("\n")
    assert config.startswith(config_before.rstrip("\n"))

    cmdline = (boot / "cmdline.txt").read_text()
    assert cmdline == cmdline_before.replace("console=serial0,115200 ", "")
    assert "console=tty1" in cmdline and cmdline.endswith("\n") and cmdline.count("\n") == 1

    # The backups hold the files exactly as they were.
    assert (boot / "config.txt.trap-companion.bak").read_text() == config_before
    assert (boot / "cmdline.txt.trap-companion.bak").read_text() == cmdline_before


@pytest.mark.parametrize("model", sorted(BOARDS))
def test_applying_twice_changes_nothing(
    tmp_path: Path, model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    boot, model_file = make_boot(tmp_path, model)
    args = ("firmware", "apply", "--boot", str(boot), "--model-file", str(model_file))
    assert cli(*args) == 0
    after_first = snapshot(boot)
    capsys.readouterr()
    assert cli(*args) == 0
    assert "already configured, nothing to change" in capsys.readouterr().out
    assert snapshot(boot) == after_first  # backups included: still the originals


def test_dry_run_prints_the_diff_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boot, _ = make_boot(tmp_path, "pi4")
    before = snapshot(boot)
    assert cli("firmware", "apply", "--boot", str(boot), "--model", "pi4", "--dry-run") == 0
    out = capsys.readouterr().out
    assert snapshot(boot) == before
    assert f"--- {boot / 'config.txt'}\n" in out
    assert f"+{I2C}\n" in out and "+dtoverlay=disable-bt\n" in out
    assert f"--- {boot / 'cmdline.txt'}\n" in out
    assert "-console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02" in out
    assert "+console=tty1 root=PARTUUID=4e639091-02" in out
    assert "dry run: nothing written" in out


def test_moving_the_card_to_a_pi5_replaces_only_our_block(tmp_path: Path) -> None:
    boot, _ = make_boot(tmp_path, "pi4")
    firmware.apply(firmware.plan(boot, "pi4"))
    with (boot / "config.txt").open("a") as handle:
        handle.write("# added by the owner after our block\ngpu_mem=16\n")
    owners = outside_block((boot / "config.txt").read_text())

    firmware.apply(firmware.plan(boot, "pi5"))
    config = (boot / "config.txt").read_text()
    assert outside_block(config) == owners
    assert config.count(firmware.BEGIN) == 1
    assert "dtparam=uart0=on" in block_of(config)
    assert "dtoverlay=disable-bt" not in config
    assert config.endswith("gpu_mem=16\n")


def test_windows_line_endings_are_kept(tmp_path: Path) -> None:
    boot, _ = make_boot(tmp_path, "pi4")
    (boot / "config.txt").write_bytes(BOOKWORM_CONFIG.replace("\n", "\r\n").encode())
    (boot / "cmdline.txt").write_bytes(DESKTOP_CMDLINE.replace("\n", "\r\n").encode())
    firmware.apply(firmware.plan(boot, "pi4"))
    config = (boot / "config.txt").read_bytes()
    assert config.count(b"\n") == config.count(b"\r\n")
    assert b"enable_uart=1\r\n" in config
    assert (
        (boot / "cmdline.txt")
        .read_bytes()
        .endswith(
            b"rootwait quiet splash "
            b"plymouth.ignore-serial-consoles "
            b"cfg80211.ieee80211_regdom=GB\r\n"
        )
    )
    assert not firmware.plan(boot, "pi4").changed


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (f"a=1\n{firmware.BEGIN}\nenable_uart=1\n", "line 2"),
        (f"{firmware.END}\nx\n{firmware.BEGIN}\n", "line 1"),
        (f"{firmware.BEGIN}\n{firmware.END}\n{firmware.BEGIN}\n{firmware.END}\n", "line 3"),
    ],
)
def test_damaged_markers_are_refused_with_where(
    tmp_path: Path, text: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    boot, _ = make_boot(tmp_path, "pi4")
    (boot / "config.txt").write_text(text)
    before = snapshot(boot)
    assert cli("firmware", "apply", "--boot", str(boot), "--model", "pi4") == 65
    out = capsys.readouterr().out
    assert "config.txt: the trap-companion marker lines are damaged" in out and problem in out
    assert snapshot(boot) == before


def test_a_multi_line_cmdline_is_refused(tmp_path: Path) -> None:
    boot, _ = make_boot(tmp_path, "pi4")
    (boot / "cmdline.txt").write_text("console=serial0,115200 root=/dev/a\nquiet\n")
    with pytest.raises(DataError, match=r"cmdline.txt: expected .* single line, found 2 lines"):
        firmware.plan(boot, "pi4")


@pytest.mark.parametrize(
    ("setup", "status", "message"),
    [
        (lambda boot: boot.rename(boot.with_name("gone")), 2, "does not exist or is not a dir"),
        (lambda boot: (boot / "config.txt").unlink(), 65, "config.txt does not exist"),
        (lambda boot: (boot / "cmdline.txt").unlink(), 65, "cmdline.txt does not exist"),
        (lambda boot: (boot / "config.txt").write_bytes(b"\xff\xfe"), 65, "not a text file"),
    ],
)
def test_bad_boot_directories_get_a_clear_message_and_status(
    tmp_path: Path, setup, status: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    boot, _ = make_boot(tmp_path, "pi3")
    setup(boot)
    assert cli("firmware", "apply", "--boot", str(boot), "--model", "pi3") == status
    assert message in capsys.readouterr().out


def test_a_failed_write_names_the_file(tmp_path: Path) -> None:
    boot, _ = make_boot(tmp_path, "pi4")
    (boot / "config.txt.trap-companion.bak").mkdir()  # the backup cannot be written
    with pytest.raises(
        CompanionError, match=r"cannot write \S*/config\.txt\.trap-companion\.bak: Is a directory$"
    ):
        firmware.apply(firmware.plan(boot, "pi4"))
    assert (boot / "config.txt").read_text() == BOOKWORM_CONFIG
    assert sorted(p.name for p in boot.iterdir()) == [
        "cmdline.txt",
        "config.txt",
        "config.txt.trap-companion.bak",
        "overlays",
    ]


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("Raspberry Pi 3 Model B Rev 1.2", "pi3"),
        ("Raspberry Pi Compute Module 3 Plus Rev 1.0", "pi3"),
        ("Raspberry Pi 4 Model B Rev 1.4", "pi4"),
        ("Raspberry Pi 400 Rev 1.0", "pi4"),
        ("Raspberry Pi Compute Module 4 Rev 1.0", "pi4"),
        ("Raspberry Pi 5 Model B Rev 1.0", "pi5"),
        ("Raspberry Pi 500 Rev 1.0", "pi5"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "zero2w"),
        ("Raspberry Pi Zero W Rev 1.1", "zerow"),
    ],
)
def test_the_model_is_read_from_the_device_tree(tmp_path: Path, name: str, model: str) -> None:
    model_file = tmp_path / "model"
    model_file.write_bytes(name.encode() + b"\0")
    assert firmware.detect_model(model_file) == model


def test_unknown_or_missing_models_say_what_to_do(tmp_path: Path) -> None:
    model_file = tmp_path / "model"
    model_file.write_bytes(b"Raspberry Pi Model B Rev 2\0")
    with pytest.raises(HardwareError, match=r"'Raspberry Pi Model B Rev 2'.*pass --model"):
        firmware.detect_model(model_file)
    with pytest.raises(
        HardwareError, match=r"does not exist .*--model pi3\|pi4\|pi5\|zero2w\|zerow"
    ):
        firmware.detect_model(tmp_path / "absent")


def test_auto_detection_failure_exits_with_the_hardware_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boot, _ = make_boot(tmp_path, "pi4")
    status = cli("firmware", "apply", "--boot", str(boot), "--model-file", str(tmp_path / "x"))
    assert status == 69
    assert "cannot tell which Raspberry Pi this is" in capsys.readouterr().out


def test_every_model_has_a_fragment_with_i2c_at_400khz() -> None:
    models = firmware.load_models()
    assert sorted(models) == ["pi3", "pi4", "pi5", "zero2w", "zerow"]
    for model in models.values():
        lines = firmware.fragment_lines(model)
        assert lines[0] == "[all]" and I2C in lines
    assert models["pi5"].reader_port == "/dev/ttyAMA0"
    assert {models[m].reader_port for m in ("pi3", "pi4", "zero2w", "zerow")} == {"/dev/serial0"}


def test_every_board_the_fragments_name_is_a_model() -> None:
    """A fragment's header names the boards it serves; each must be one `firmware` accepts."""
    models = firmware.load_models()
    claims = {
        "Zero W": "zerow", "Zero 2 W": "zero2w", "3": "pi3", "4": "pi4", "400": "pi4", "5": "pi5",
        "500": "pi5",
    }  # fmt: skip
    for fragment in {m.fragment for m in models.values()}:
        header = (firmware.firmware_dir() / fragment).read_text().splitlines()[0]
        served = header.split("Raspberry Pi ", 1)[1].rstrip(".").replace(" or ", ", ")
        for board in served.split(", "):
            assert models[claims[board]].fragment == fragment, f"{fragment} claims {board}"


def test_the_commands_model_choices_are_the_models() -> None:
    assert list(command.MODEL_CHOICES) == ["auto", *sorted(firmware.load_models())]


# Owner lines: anything printable that is not one of our markers.
owner_line = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30
).filter(lambda s: s.strip() not in (firmware.BEGIN, firmware.END))
owner_text = st.lists(owner_line, max_size=8).map(lambda lines: "".join(f"{x}\n" for x in lines))


@given(before=owner_text, after=owner_text, model=st.sampled_from(sorted(BOARDS)))
def test_lines_outside_the_markers_are_never_touched(before: str, after: str, model: str) -> None:
    lines = firmware.fragment_lines(firmware.load_models()[model])
    old_block = "\n".join([firmware.BEGIN, "stale=1", firmware.END]) + "\n"
    text = before + old_block + after
    result = firmware.with_block(text, lines, model)
    assert outside_block(result) == before + after
    assert firmware.with_block(result, lines, model) == result
    fresh = firmware.with_block(before, lines, model)
    assert fresh.startswith(before) and firmware.with_block(fresh, lines, model) == fresh


kernel_token = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20
)
console_token = st.sampled_from(
    ["console=serial0,115200", "console=ttyAMA0,115200", "console=serial0", "console=ttyAMA0"]
)


@given(
    tokens=st.lists(st.one_of(kernel_token, console_token), min_size=1, max_size=10),
    ending=st.sampled_from(["", "\n", "\r\n"]),
)
def test_the_serial_console_goes_and_every_other_token_stays(
    tokens: list[str], ending: str
) -> None:
    text = " ".join(tokens) + ending
    result = firmware.without_serial_console(text)
    kept = [t for t in tokens if not firmware.SERIAL_CONSOLE.fullmatch(t)]
    if len(kept) < len(tokens):
        assert result == " ".join(kept) + ending
    else:
        assert result == text
    assert firmware.without_serial_console(result) == result
    assert "console=tty1" not in tokens or "console=tty1" in result.split()
