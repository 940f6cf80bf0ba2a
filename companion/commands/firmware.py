"""``trap-companion firmware apply``: turn on I2C and the reader's UART in the Pi's boot files."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.pi import firmware
from companion.pi.paths import BOOT_DIR, MODEL_FILE

MODEL_CHOICES = ("auto", "pi3", "pi4", "pi5", "zero2w", "zerow")  # firmware/models.toml


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "firmware",
        help="the Raspberry Pi boot configuration the box needs",
        description="Manage the Raspberry Pi boot configuration (config.txt, cmdline.txt).",
    )
    actions = parser.add_subparsers(dest="firmware_command", metavar="ACTION", required=True)
    apply = actions.add_parser(
        "apply",
        help="enable I2C at 400 kHz and the reader's UART, remove the serial console",
        description=(
            "Write the box's lines into config.txt between marker lines and remove the serial "
            "console from cmdline.txt. Each changed file is backed up first (NAME"
            f"{firmware.BACKUP_SUFFIX}); applying again changes nothing; lines outside the "
            "markers are never touched. Reboot afterwards."
        ),
    )
    apply.add_argument(
        "--boot",
        type=Path,
        default=BOOT_DIR,
        metavar="DIR",
        help=f"the boot partition (default: {BOOT_DIR})",
    )
    apply.add_argument(
        "--model",
        choices=MODEL_CHOICES,
        default="auto",
        help="the Raspberry Pi model (default: auto, read from --model-file)",
    )
    apply.add_argument(
        "--model-file",
        type=Path,
        default=MODEL_FILE,
        metavar="FILE",
        help=f"where the board names its model (default: {MODEL_FILE})",
    )
    apply.add_argument(
        "--dry-run", action="store_true", help="print the changes as a diff and write nothing"
    )
    apply.set_defaults(func=run_apply)


def run_apply(args: argparse.Namespace) -> int:
    firmware.require_boot_dir(args.boot)  # a wrong --boot is the likelier mistake
    model = args.model
    if model == "auto":
        model = firmware.detect_model(args.model_file)
    planned = firmware.plan(args.boot, model)
    print(f"model: {model} (card reader on {planned.model.reader_port})")
    if not planned.changed:
        print(f"{args.boot}: already configured, nothing to change")
        return 0
    if args.dry_run:
        print(planned.diff(), end="")
        print("dry run: nothing written")
        return 0
    for path in firmware.apply(planned):
        print(f"updated {path} (backup: {path.name}{firmware.BACKUP_SUFFIX})")
    print("reboot for the changes to take effect")
    return 0
