"""Whatever kind of file and whatever bytes stand in the state dir and in the config: the box
starts and reaches READY (a state file it cannot use is set aside with one ERROR line naming
it), and the config is a Config or a ConfigError (exit 78), never anything else."""

from __future__ import annotations

import dataclasses
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.app import Parts
from companion.core import config as configuration
from companion.core import statefile
from companion.core.clock import VirtualClock
from companion.core.config import from_dict
from companion.core.tomltext import toml_value
from companion.daemon import Daemon
from companion.errors import ConfigError
from companion.games.deathtrap_dungeon import pack as packs
from companion.hal.display import Display
from companion.hal.pins import make_factory

STATE_FILES = ("journal.jsonl", "cards.toml", "records.json", packs.OWNER_NAME)
OTHER_FILES = (
    packs.LAST_GOOD_NAME,
    "journal.jsonl.next",
    "cards.toml.tmp",
    "records.json.tmp",
    "history",
)
GOOD = {
    "journal.jsonl": '{"v":1,"seq":1,"kind":"game","game":"dice","options":{},"rolls":[],"at":0}\n',
    "cards.toml": '[cards."04A1B2C3"]\ngame = "dice"\ncard = "x"\nname = "y"\n',
    "records.json": '{"version": 1, "results": []}\n',
    packs.OWNER_NAME: packs.SHIPPED.read_text(encoding="utf-8"),
    packs.LAST_GOOD_NAME: packs.SHIPPED.read_text(encoding="utf-8"),
}


class Notifier:
    def __init__(self) -> None:
        self.ready_status: str | None = None

    def ready(self, status: str | None = None) -> None:
        self.ready_status = status

    def status(self, text: str) -> None:
        pass

    def stopping(self) -> None:
        pass

    def watchdog(self, workers_alive: bool, answering: bool = True) -> bool:
        return workers_alive and answering

    def watchdog_interval(self) -> float | None:
        return None


def _mutated(draw: Any, text: str) -> bytes:
    data = bytearray(text.encode())
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.sampled_from([b"[", b"9" * 4400, b"\xff", b"\n", b'"', b"{"]))
    return bytes(data)


@st.composite
def file_kinds(draw: Any, name: str) -> tuple[str, Any]:
    """One thing standing at a state file's path."""
    kinds = ["absent", "good", "mutated", "bytes", "empty", "fifo", "dir", "zero", "null"]
    kinds += ["dangling", "loop", "link-to-good", "too-big", "deep"]
    kind = draw(st.sampled_from(kinds))
    if kind == "mutated":
        return kind, _mutated(draw, GOOD.get(name, ""))
    if kind == "bytes":
        return kind, draw(st.binary(max_size=200))
    return kind, None


def _make(path: Path, kind: str, data: Any) -> None:
    good = GOOD.get(path.name, "")
    if kind in ("mutated", "bytes"):
        path.write_bytes(data)
    elif kind == "good":
        path.write_text(good, encoding="utf-8")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    elif kind in ("zero", "null"):
        path.symlink_to(f"/dev/{kind}")
    elif kind == "dangling":
        path.symlink_to("nowhere")
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "link-to-good":
        target = path.with_name(f"{path.name}.target")
        target.write_text(good, encoding="utf-8")
        path.symlink_to(target.name)
    elif kind == "too-big":
        with path.open("wb") as f:
            f.truncate(statefile.JOURNAL_CAP + 1)
    elif kind == "deep":
        path.write_text("x = " + "[" * 50_000 + "\n")


NOT_A_FILE = {"fifo", "dir", "zero", "null", "dangling", "loop", "link-to-good", "too-big"}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.fixed_dictionaries(
        {name: file_kinds(name) for name in STATE_FILES + OTHER_FILES}  # type: ignore[misc]
    )
)
def test_the_box_reaches_ready_whatever_the_state_dir_holds(caplog, files) -> None:
    caplog.clear()
    with tempfile.TemporaryDirectory() as tmp, caplog.at_level(logging.WARNING):
        state = Path(tmp) / "state"
        state.mkdir()
        for name, (kind, data) in files.items():
            if kind != "absent":
                _make(state / name, kind, data)
        sections = {
            "hardware": {"pin_factory": "mock"},
            "display": {"driver": "dummy"},
            "reader": {"type": "none"},
            "state": {"dir": str(state)},
        }
        config = from_dict(sections, "test")
        factory = make_factory("mock")
        notifier = Notifier()
        try:
            daemon = Daemon(
                config, Parts(factory, Display(None), None, "none"), VirtualClock(), notifier
            )
            daemon.app.start()
            daemon.ready()
            daemon.app.shutdown()
        finally:
            factory.reset()
            factory.close()
        assert notifier.ready_status is not None
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        for name in STATE_FILES:
            kind, _ = files[name]
            if kind in NOT_A_FILE:
                assert statefile.is_regular(state / name) or not os.path.lexists(state / name)
                assert any(str(state / name) in e for e in errors), (name, kind, errors)
                assert list(state.glob(f"{name}.unreadable-*")), (name, kind)


# --- the config --------------------------------------------------------------------------------

KNOWN = {
    name: [f.name for f in dataclasses.fields(cls)] for name, cls in configuration.SECTIONS.items()
}
values = st.one_of(
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_subnormal=False) | st.just(5e-324),  # see test_journal.FLOATS
    st.booleans(),
    st.text(max_size=12),
    st.lists(st.integers(0, 30), max_size=3),
    st.dictionaries(st.sampled_from(["a", "up"]), st.integers(0, 30), max_size=2),
)


@st.composite
def config_texts(draw: Any) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 3))):  # keys above every header
        key = draw(st.sampled_from(["volume", "up", "dir", "x"]))
        lines.append(f"{key} = {toml_value(draw(values))}")
    for section in draw(st.lists(st.sampled_from([*KNOWN, "bogus"]), unique=True, max_size=5)):
        lines.append(f"[{section}]")
        keys = [*KNOWN.get(section, ["x"]), "nope"]
        for key in draw(st.lists(st.sampled_from(keys), unique=True, max_size=4)):
            lines.append(f"{key} = {toml_value(draw(values))}")
    text = "\n".join(lines) + "\n"
    return _mutated(draw, text) if draw(st.booleans()) else text.encode()


def _load(path: Path) -> None:
    try:
        config = configuration.load(path)
    except ConfigError as err:
        assert str(err).startswith(str(path))
        assert "\n" not in str(err)
    else:
        assert isinstance(config, configuration.Config)


@settings(max_examples=300, deadline=None)
@given(config_texts())
def test_any_config_text_is_a_config_or_one_line_naming_the_file(text: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        path.write_bytes(text)
        _load(path)


@settings(max_examples=30, deadline=None)
@given(file_kinds("config.toml"))
def test_any_kind_of_config_file_is_a_config_or_one_line_naming_it(kind: tuple[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        if kind[0] != "absent":
            _make(path, *kind)
            _load(path)
        else:
            try:
                configuration.load(path)
            except ConfigError as err:
                assert "no such config file" in str(err)
