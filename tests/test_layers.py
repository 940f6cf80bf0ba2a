"""The layering holds: lower layers never import higher ones, and a game's rules module imports
only its own game, games/base and the shared kit (tools/layers.py holds the table and prints
the graph; docs/architecture.md says why the layers are what they are)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"
sys.path.insert(0, str(TOOLS))
import layers  # noqa: E402


def test_no_import_runs_against_the_layers() -> None:
    bad = [f"{i.where} imports {i.target}" for i in layers.violations()]
    assert bad == []


def test_every_known_exception_is_still_there() -> None:
    """A known exception that was fixed must leave the list (so the list only shrinks)."""
    present = {(i.module, i.target) for i in layers.all_imports() if layers.against(i)}
    assert set(layers.KNOWN) <= present


def test_rules_modules_import_only_their_game_and_the_kit() -> None:
    games = {p.parent.name for p in (layers.ROOT / "games").glob("*/__init__.py")}
    with_rules = {p.parent.name for p in (layers.ROOT / "games").glob("*/rules.py")}
    assert games <= with_rules  # every game keeps its rules in rules.py
    bad = [f"{i.where} imports {i.target}" for i in layers.rules_violations()]
    assert bad == []


def test_every_module_has_a_layer_and_the_order_has_no_cycle() -> None:
    for path in layers.ROOT.rglob("*.py"):
        assert layers.layer_of(layers.module_name(path)) in layers.LAYERS
    for layer, below in layers.MAY_IMPORT.items():
        for other in below:
            assert layer not in layers.MAY_IMPORT[other], (layer, other)


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "companion"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for folder in [root, *[p for p in root.rglob("*") if p.is_dir()]]:
        (folder / "__init__.py").touch()
    return root


def test_the_checker_sees_an_arrow_back_up_in_any_form(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "core/journal.py": "from companion.games.base import Action\n",
            "ui/menus.py": "def f():\n    from ..games import base\n",
            "hal/buttons.py": "import companion.app\n",
            "games/base.py": "from companion.ui.screen import Screen\n",
            "ui/screen.py": "",
            "games/x/rules.py": "import random\nfrom companion.ui import screen\n",
        },
    )
    bad = {(i.module, i.target) for i in layers.violations(root)}
    assert ("companion.ui.menus", "companion.games.base") in bad  # relative, inside a function
    assert ("companion.hal.buttons", "companion.app") in bad
    assert ("companion.games.base", "companion.ui.screen") not in bad  # downward is fine
    # the journal's arrow is a known exception only while it is in the KNOWN list
    assert ("companion.core.journal", "companion.games.base") in {
        (i.module, i.target) for i in layers.all_imports(root) if layers.against(i)
    }
    impure = {i.target for i in layers.rules_violations(root)}
    assert impure == {"random", "companion.ui.screen"}


def test_no_modules_import_each_other_round_in_a_circle() -> None:
    assert layers.circles() == []


def test_the_checker_refuses_a_circle_in_any_form(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            # app: a -> b -> c -> a, the last one inside a function and a TYPE_CHECKING block
            "app/a.py": "from companion.app import b\n",
            "app/b.py": "from .c import thing\n",
            "app/c.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from companion.app.a import A\n"
                "thing = 1\n"
            ),
            # two modules of the top layer that import each other
            "bench.py": "def f():\n    from companion import floods\n",
            "floods.py": "import companion.bench\n",
            # one way down, and a package importing its own module: no circle
            "ui/screen.py": "",
            "ui/menus.py": "from companion.ui.screen import Screen\n",
            "core/__init__.py": "from companion.core import loop\n",
            "core/loop.py": "from companion.core.clock import Clock\n",
            "core/clock.py": "",
        },
    )
    assert layers.circles(root) == [
        ["companion.app.a", "companion.app.b", "companion.app.c"],
        ["companion.bench", "companion.floods"],
    ]
    assert layers.violations(root) == []  # a circle inside one layer is not an arrow back up
    done = subprocess.run(
        [sys.executable, str(TOOLS / "layers.py"), "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "imports round in a circle: companion.bench <-> companion.floods" in done.stdout


def test_the_tool_prints_the_graph_and_exits_0_on_this_tree() -> None:
    done = subprocess.run(
        [sys.executable, str(TOOLS / "layers.py")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^games -> ui +[0-9]+ module pairs$", done.stdout, re.M)
    against = [line for line in done.stdout.splitlines() if "AGAINST" in line]
    assert all(line.lstrip().startswith("core -> games") for line in against), against


@pytest.mark.parametrize("module", ["companion.web.server", "companion.phones.page"])
def test_a_new_package_is_top(module: str) -> None:
    assert layers.layer_of(module) == "top"
