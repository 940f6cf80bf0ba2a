"""docs/architecture.md names code by path and by `path:Symbol`: every name must still exist,
so the map a newcomer reads first cannot drift from the code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
TOP = ("companion/", "tools/", "tests/", "systemd/", "firmware/", "hardware/", "docs/")
PATH = re.compile(r"^[\w./*-]+$")
DOTTED = re.compile(r"^([A-Z]\w*)\.(\w+)$")  # Class.method, checked against the doc's files


def names() -> list[str]:
    return re.findall(r"`([^`\s]+)`", DOC.read_text(encoding="utf-8"))


def definitions(path: Path) -> dict[str, set[str]]:
    """Top-level names of a module, each with the names defined in its body (a class's
    methods and attributes); module-level assignments count as names too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = set()
        elif isinstance(node, ast.ClassDef):
            inner = {
                item.name
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            }
            inner |= {
                target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign | ast.Assign)
                for target in (item.targets if isinstance(item, ast.Assign) else [item.target])
                if isinstance(target, ast.Name)
            }
            found[node.name] = inner
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update({t.id: set() for t in targets if isinstance(t, ast.Name)})
    return found


def problems() -> list[str]:
    bad: list[str] = []
    classes: dict[str, set[str]] = {}
    dotted: list[str] = []
    for name in names():
        path_part, _, symbol = name.partition(":")
        if not path_part.startswith(TOP) or not PATH.match(path_part):
            if DOTTED.match(name):
                dotted.append(name)
            continue
        matches = list(ROOT.glob(path_part)) if "*" in path_part else [ROOT / path_part]
        if not any(m.exists() for m in matches):
            bad.append(f"{name}: no such path")
            continue
        if not path_part.endswith(".py"):
            continue
        defined = definitions(ROOT / path_part)
        for cls, inner in defined.items():
            classes.setdefault(cls, set()).update(inner)
        if symbol:
            top, _, member = symbol.partition(".")
            if top not in defined:
                bad.append(f"{name}: {path_part} defines no {top}")
            elif member and member not in defined[top]:
                bad.append(f"{name}: {top} has no {member}")
    for name in dotted:
        cls, member = DOTTED.match(name).groups()  # type: ignore[union-attr]
        if cls in classes and member not in classes[cls]:
            bad.append(f"{name}: {cls} has no {member}")
    return bad


def test_every_path_and_symbol_the_map_names_exists():
    assert names(), "the map names no code"
    assert problems() == []


def test_the_check_catches_a_name_that_is_gone(tmp_path, monkeypatch):
    doc = tmp_path / "architecture.md"
    doc.write_text(
        "`companion/core/loop.py:Loop.call_at` `companion/core/loop.py:Loop.no_such_method` "
        "`companion/no_such_file.py` `companion/core/loop.py:Nothing` `Loop.nor_this`\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(__import__(__name__), "DOC", doc)
    assert problems() == [
        "companion/core/loop.py:Loop.no_such_method: Loop has no no_such_method",
        "companion/no_such_file.py: no such path",
        "companion/core/loop.py:Nothing: companion/core/loop.py defines no Nothing",
        "Loop.nor_this: Loop has no nor_this",
    ]


def test_readme_links_the_map():
    assert "docs/architecture.md" in (ROOT / "README.md").read_text(encoding="utf-8")
