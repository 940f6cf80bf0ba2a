"""Print the layer-to-layer imports of the companion package, and any that run against the layers.

    python3 tools/layers.py            # layer -> layer, with how many imports make each arrow
    python3 tools/layers.py --modules  # every import that crosses a layer, module by module
    python3 tools/layers.py --root DIR  # another checkout's companion/ package

Exit status 1 when an import runs against the layers, or when modules import each other round
in a circle (a -> b -> ... -> a, at any depth, inside functions and TYPE_CHECKING blocks too;
tests/test_layers.py asserts the same). A circle means no module of it can be read without the
others: the box's flow is one way down (docs/architecture.md, "The app").
It reads the source with ``ast`` and imports nothing, so it runs on any checkout without a venv.

The layers, lowest first (docs/architecture.md says why):

    core   the event loop, clock, journal, config, card registry, records (and companion.errors)
    ui     what a screen is and how it is drawn, the menu kit's value types, the menus
    games  pure rules and their screens, built from ui's value types; beside it
    hal    the box's devices (buttons, OLED, LED, sound, card readers)
    faces  the one interface of every face (a snapshot of what the box shows, inputs posted back)
    app    joins a game to the devices and to the menus; the only place that knows all of them
    top    what runs the app: daemon, simulator, replay, bench, Pi tools, commands, cli

A layer may import its own modules and the layers below it; games and hal never import each
other. Anything not named below (a new package) is top.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "companion"

# layer name -> the package prefixes that belong to it
LAYERS: dict[str, tuple[str, ...]] = {
    "core": ("companion.core", "companion.errors"),
    "ui": ("companion.ui",),
    "games": ("companion.games",),
    "hal": ("companion.hal",),
    "faces": ("companion.faces",),
    "app": ("companion.app",),
    "top": (),
}

# layer name -> the layers it may import (besides itself)
MAY_IMPORT: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "ui": frozenset({"core"}),
    "games": frozenset({"core", "ui"}),
    "hal": frozenset({"core", "ui"}),
    "faces": frozenset({"core", "ui"}),
    "app": frozenset({"core", "ui", "games", "hal", "faces"}),
    "top": frozenset({"core", "ui", "games", "hal", "faces", "app"}),
}

# Imports known to run against the layers, each with why it is still there. Empty this list; do
# not grow it.
KNOWN: dict[tuple[str, str], str] = {}

# A game's rules module may import only these besides its own game's modules (and the standard
# library, minus what would bring in I/O, time or chance).
RULES_KIT = (
    "companion.games.base",
    "companion.games.seats",
    "companion.games.timer",
    "companion.games.options",
    "companion.games.datafile",
)
RULES_STDLIB_FORBIDDEN = (
    "random",
    "time",
    "datetime",
    "os",
    "pathlib",
    "io",
    "socket",
    "subprocess",
    "threading",
    "logging",
    "secrets",
)


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, e.g. companion.ui.menus
    target: str  # the imported module, e.g. companion.ui.forms
    line: int

    @property
    def where(self) -> str:
        return f"{self.module.replace('.', '/')}.py:{self.line}"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path, root: Path = ROOT) -> list[Import]:
    """Every import in one file, at any depth (inside functions too), as absolute names; an
    imported name that is itself a module (``from companion.games import timer``) counts as
    that module."""
    module = module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(module, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, path.name == "__init__.py", node)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                named_module = _is_module(sub, root)
                found.append(Import(module, sub if named_module else target, node.lineno))
    return list(dict.fromkeys(found))


def _is_module(name: str, root: Path) -> bool:
    if not name.startswith("companion."):
        return False
    rel = Path(*name.split(".")[1:])
    return (root / rel).with_suffix(".py").is_file() or (root / rel / "__init__.py").is_file()


def all_imports(root: Path = ROOT) -> list[Import]:
    out: list[Import] = []
    for path in sorted(root.rglob("*.py")):
        out += imports_of(path, root)
    return out


def layer_of(module: str) -> str | None:
    """The layer of a companion module (None for anything outside the package)."""
    if module != "companion" and not module.startswith("companion."):
        return None
    best, length = "top", 0
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = layer, len(prefix)
    return best


def against(imp: Import) -> bool:
    """True when this import runs against the layers."""
    here, there = layer_of(imp.module), layer_of(imp.target)
    if here is None or there is None or here == there:
        return False
    return there not in MAY_IMPORT[here]


def violations(root: Path = ROOT) -> list[Import]:
    """Imports against the layers that are not in KNOWN."""
    return [i for i in all_imports(root) if against(i) and (i.module, i.target) not in KNOWN]


def rules_violations(root: Path = ROOT) -> list[Import]:
    """Imports of a game's rules module that are not its own game, the kit or a pure stdlib."""
    bad: list[Import] = []
    for path in sorted((root / "games").glob("*/rules.py")):
        own = module_name(path.parent, root)
        for imp in imports_of(path, root):
            mine = imp.target == own or imp.target.startswith(own + ".")
            if imp.target.startswith("companion"):
                if not mine and imp.target not in RULES_KIT:
                    bad.append(imp)
            elif imp.target.split(".")[0] in RULES_STDLIB_FORBIDDEN:
                bad.append(imp)
    return bad


def circles(root: Path = ROOT) -> list[list[str]]:
    """The modules of the package that import each other round in a circle, each circle as its
    modules sorted (strongly connected components of the import graph, Tarjan's algorithm).
    An import names the module it imports: a package's ``__init__`` that Python runs on the way
    to one of its modules is not an arrow."""
    known = {module_name(p, root) for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in all_imports(root):
        if imp.target in known:
            graph[imp.module].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the package's module count
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(known):
        if v not in index:
            visit(v)
    return sorted(found)


def arrows(root: Path = ROOT) -> dict[tuple[str, str], list[Import]]:
    """Layer -> layer, with the imports that make each arrow."""
    out: dict[tuple[str, str], list[Import]] = defaultdict(list)
    for imp in all_imports(root):
        here, there = layer_of(imp.module), layer_of(imp.target)
        if here is not None and there is not None and here != there:
            out[(here, there)].append(imp)
    return dict(out)


def main(argv: list[str]) -> int:
    by_module = "--modules" in argv
    root = Path(argv[argv.index("--root") + 1]) if "--root" in argv else ROOT
    order = list(LAYERS)
    graph = arrows(root)
    for (here, there), found in sorted(
        graph.items(), key=lambda kv: (order.index(kv[0][0]), order.index(kv[0][1]))
    ):
        pairs = sorted({(i.module, i.target) for i in found})
        mark = "  AGAINST THE LAYERS" if there not in MAY_IMPORT[here] else ""
        print(f"{here:>5} -> {there:<5} {len(pairs):3d} module pairs{mark}")
        if by_module:
            for module, target in pairs:
                print(f"        {module} -> {target}")
    known = [i for i in all_imports(root) if against(i) and (i.module, i.target) in KNOWN]
    for imp in known:
        print(f"known: {imp.where} imports {imp.target} ({KNOWN[(imp.module, imp.target)]})")
    bad = violations(root)
    for imp in bad:
        print(f"against the layers: {imp.where} imports {imp.target}")
    impure = rules_violations(root)
    for imp in impure:
        print(f"rules module not pure: {imp.where} imports {imp.target}")
    round_ = circles(root)
    for circle in round_:
        print(f"imports round in a circle: {' <-> '.join(circle)}")
    return 1 if bad or impure or round_ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
