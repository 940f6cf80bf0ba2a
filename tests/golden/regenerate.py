"""Write the golden frames that tests/test_render.py compares against.

Run after a deliberate change to the look of the screens, then look at every image before
committing them:  .venv/bin/python tests/golden/regenerate.py [--preview DIR]
(--preview also writes each frame scaled up 4x, easier to judge by eye).

The frames are FreeType's drawing: the layout is the box's own (Pillow's basic engine, on every
system), but the hinter of another FreeType release sets a pixel of a glyph here and there
differently. The frames in this folder are drawn with REFERENCE (what Pillow's wheels bundle);
run under another release (Debian 12's 2.12, which a 32-bit Pi's Pillow links), this writes
only the frames that release draws differently, into freetype-MAJOR.MINOR/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image, ImageChops, features

from companion.ui.render import render
from companion.ui.screen import Screen

HERE = Path(__file__).resolve().parent
REFERENCE = "2.14"  # the FreeType release (major.minor) the frames in HERE are drawn with


def freetype_release() -> str:
    """This Pillow's FreeType, as major.minor."""
    return ".".join((features.version("freetype2") or "0.0").split(".")[:2])


def golden_path(name: str) -> Path:
    """The frame ``name`` as this FreeType release draws it: its own copy where it draws that
    frame differently from REFERENCE, else the reference frame."""
    own = HERE / f"freetype-{freetype_release()}" / f"{name}.png"
    return own if own.is_file() else HERE / f"{name}.png"


# name -> screen; each is drawn to HERE/<name>.png
GOLDEN: dict[str, Screen] = {
    "dice_d6": Screen("Dice  d6", ("d6  roll 3",), big="4", footer="G roll  R again"),
    "dice_2d6_double": Screen("Dice  2d6", ("= 10  DOUBLE!",), big="5+5", footer="G roll  R again"),
    "timer_0_45": Screen(
        "Trapwords  R3", ("Team A guessing",), big="0:45", footer="G correct  R wrong"
    ),
    "instruction_three_lines": Screen(
        "Trap Attack  AI", ("AI moves 4", "30 -> 26", "Roll action die"), footer="G roll  R undo"
    ),
    "dungeon_5_rooms": Screen(
        "Trapwords  R1",
        ("A writes 3  B writes 3",),
        footer="G start  R menu",
        picture=("dungeon", ((3, 4, 5, 6, 7), 3, 3, 7, (4, 6))),
    ),
    "dungeon_7_rooms": Screen(
        "Trapwords  R6",
        (),
        footer="G start  R menu",
        picture=("dungeon", ((1, 2, 3, 4, 5, 6, 7), 2, 5, 5, (1, 1, 3))),
    ),
    "time_up_inverted": Screen(
        "Trapwords  R3", ("Time up", "Team B"), footer="G next  R undo", inverted=True
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preview", type=Path, help="also write 4x copies to this folder")
    args = parser.parse_args(argv)
    if args.preview:
        args.preview.mkdir(parents=True, exist_ok=True)
    release = freetype_release()
    folder = HERE if release == REFERENCE else HERE / f"freetype-{release}"
    for name, screen in GOLDEN.items():
        frame = render(screen)
        if folder != HERE:
            reference = Image.open(HERE / f"{name}.png").convert("1")
            if ImageChops.difference(frame, reference).getbbox() is None:
                continue  # this release draws it as the reference does
            folder.mkdir(exist_ok=True)
        frame.save(folder / f"{name}.png")
        if args.preview:
            big = frame.resize((frame.width * 4, frame.height * 4), Image.Resampling.NEAREST)
            big.save(args.preview / f"{name}.png")
        print(f"wrote {(folder / name).relative_to(HERE)}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
