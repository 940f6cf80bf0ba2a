"""Every file the box keeps (``statefile.KEPT``, the one list the reading code names its files
and caps from) is damaged here in the ways an owner's bad day or a stranger leaves it: a FIFO,
a link to /dev/zero, nesting too deep, a number of 5000 digits. Whatever it is, the box (phones
on, so that phones.json is read too) reaches READY within seconds, never hangs or crashes, and
what it could not read is set aside with an ERROR line naming it. A file added to KEPT is
damaged here without a word more."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest
from phones_support import free_port
from test_state_files_properties import Notifier

from companion.app import Parts
from companion.core import statefile
from companion.core.clock import VirtualClock
from companion.core.config import from_dict
from companion.daemon import Daemon
from companion.games.deathtrap_dungeon import pack as packs
from companion.hal.display import Display
from companion.hal.pins import make_factory

DEEP = {"jsonl": "[" * 100_000 + "\n", "json": "[" * 100_000, "toml": "x = " + "[" * 100_000}
LONG = {
    "jsonl": '{"v":' + "9" * 5000 + "}\n",
    "json": '{"version": ' + "9" * 5000 + "}",
    "toml": "x = " + "9" * 5000 + "\n",
}
DAMAGE = {
    "fifo": lambda path, kept: os.mkfifo(path),
    "dev-zero": lambda path, kept: path.symlink_to("/dev/zero"),
    "deep": lambda path, kept: path.write_text(DEEP[kept.form]),
    "long-number": lambda path, kept: path.write_text(LONG[kept.form]),
}
NOT_A_FILE = ("fifo", "dev-zero")
# Read only beside another file: the last good pack copy, when the owner has a pack.
BESIDE = {statefile.PACK_LAST_GOOD.name: statefile.PACK.name}


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("kept", statefile.KEPT, ids=lambda kept: kept.name)
def test_the_box_starts_whatever_damage_a_kept_file_has(tmp_path: Path, caplog, kept, damage):
    state = tmp_path / "state"
    state.mkdir()
    path = state / kept.name
    DAMAGE[damage](path, kept)
    if kept.name in BESIDE:
        (state / BESIDE[kept.name]).write_text(packs.SHIPPED.read_text(encoding="utf-8"))
    sections = {
        "hardware": {"pin_factory": "mock"},
        "display": {"driver": "dummy"},
        "reader": {"type": "none"},
        "state": {"dir": str(state)},
        "phones": {"enabled": True, "port": free_port()},
    }
    factory = make_factory("mock")
    notifier = Notifier()
    failed: list[BaseException] = []

    def start() -> None:
        try:
            daemon = Daemon(
                from_dict(sections, "test"),
                Parts(factory, Display(None), None, "none"),
                VirtualClock(),
                notifier,
            )
            daemon.app.start()
            daemon.ready()
            daemon.start_phones()
            daemon.phones.ready.wait(10)  # a stop before it serves is another matter
            daemon.phones.stop()
            daemon.app.shutdown()
        except BaseException as err:  # handed to the test's thread
            failed.append(err)

    # On a thread of its own: a FIFO opened for reading blocked the start for ever.
    starting = threading.Thread(target=start, daemon=True)
    try:
        with caplog.at_level(logging.WARNING):
            starting.start()
            starting.join(timeout=20)
    finally:
        factory.reset()
        factory.close()
    assert not starting.is_alive(), "the start hung"
    assert not failed, failed
    assert notifier.ready_status is not None
    assert not [r for r in caplog.records if r.exc_info], "a traceback"
    aside = list(state.glob(f"{kept.name}.unreadable-*"))
    if damage in NOT_A_FILE:
        assert aside, "set aside"
    if aside:
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert any(str(path) in e for e in errors), errors
    assert not os.path.lexists(path) or statefile.is_regular(path)
