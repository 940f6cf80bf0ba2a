"""Write the golden frames that tests/test_render.py compares against.

Run after a deliberate change to the look of the screens, then look at every image before
committing them:  .venv/bin/python tests/golden/regenerate.py [--preview DIR]
(--preview also writes each frame scaled up 4x, easier to judge by eye).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

from companion.ui.render import render
from companion.ui.screen import Screen

HERE = Path(__file__).resolve().parent

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
    for name, screen in GOLDEN.items():
        frame = render(screen)
        frame.save(HERE / f"{name}.png")
        if args.preview:
            big = frame.resize((frame.width * 4, frame.height * 4), Image.Resampling.NEAREST)
            big.save(args.preview / f"{name}.png")
        print(f"wrote {name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
