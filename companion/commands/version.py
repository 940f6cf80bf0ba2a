"""`trap-companion version`: the running release and the one kept for going back."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion import __version__


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "version",
        help="the running release and the one kept for going back",
        description="Names the release that runs (/opt/trap-companion/current), the one kept "
        "for going back (previous), and one on trial while an update proves it. Reads only.",
    )
    p.add_argument("--json", action="store_true", help="as one JSON object")
    p.add_argument("--opt-dir", type=Path, default=None, help=argparse.SUPPRESS)  # tests
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from companion.release.about import about, program_version
    from companion.release.layout import OPT_DIR, Layout

    layout = Layout(args.opt_dir or OPT_DIR)
    found = about(layout, program_version(__version__))
    if args.json:
        print(json.dumps(found.as_dict()))
    else:
        print("\n".join(found.lines(str(layout.root))))
    return 0
