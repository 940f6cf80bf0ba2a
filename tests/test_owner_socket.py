"""The owner's socket (issue 45 point 1): while the box runs, `trap-companion cards` asks it, so
the box is the only writer of its state; the socket is done on the loop, and a slow, silent or
refused client never holds the loop or another client."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_damaged_state import box_config

from companion.core.registry import Registry
from companion.owner import client, protocol
from companion.owner.server import OwnerSocket

CARD = {"uid": "04A1B2C4", "game": "trapwords", "card": "curse-echo", "name": "Echo", "fields": {}}


class _Loop:
    """The box's loop as the socket sees it: a bounded queue for remotes, one consumer."""

    def __init__(self, limit: int = 4) -> None:
        self.queue: queue.Queue = queue.Queue(limit)
        self.threads: list[str] = []
        self.held = threading.Event()
        self.held.set()
        threading.Thread(target=self._consume, daemon=True).start()

    def post_remote(self, event) -> bool:
        try:
            self.queue.put_nowait(event)
        except queue.Full:
            return False
        return True

    def _consume(self) -> None:
        while True:
            event = self.queue.get()
            self.held.wait()
            self.threads.append(threading.current_thread().name)
            event.fn()


class _Config:
    def __init__(self, state: Path) -> None:
        self.state = state

    def state_dir(self) -> Path:
        return self.state


class _App:
    def __init__(self, state: Path) -> None:
        self.loop = _Loop()
        self.registry = Registry(state / "cards.toml")
        self.config = _Config(state)
        self.notes: list[str] = []
        self.fed: list = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    def feed(self, event) -> None:
        self.fed.append(event)


@pytest.fixture
def served(tmp_path):
    app = _App(tmp_path)
    server = OwnerSocket(app, tmp_path / "owner.sock")
    server.start()
    yield app, server
    server.stop()


def test_an_enrolment_is_done_by_the_box_logged_and_shown(served, tmp_path):
    app, server = served
    answer = client.ask({"verb": "enrol", "card": CARD, "force": False}, server.path)
    assert answer["ok"], answer
    assert answer["body"]["line"] == "04A1B2C4: Echo (trapwords curse-echo)"
    assert app.loop.threads and app.loop.threads[0] != threading.current_thread().name
    assert "04A1B2C4" in Registry(tmp_path / "cards.toml").cards
    assert any("enrolled from a shell" in n for n in app.notes)
    assert [e.lines for e in app.fed] == [("Card enrolled", "Echo")]
    listed = client.ask({"verb": "list"}, server.path)["body"]["lines"]
    assert listed and listed[0].startswith("04A1B2C4")
    gone = client.ask({"verb": "forget", "uid": "04A1B2C4"}, server.path)
    assert gone["body"]["line"] == "forgot 04A1B2C4 (Echo)"
    assert Registry(tmp_path / "cards.toml").cards == {}
    again = client.ask({"verb": "forget", "uid": "04A1B2C4"}, server.path)
    assert again["error"] == "lookup"


def test_a_card_the_form_could_not_make_is_refused_by_the_box(served, tmp_path):
    _app, server = served
    bad = {**CARD, "card": "no-such-card"}
    answer = client.ask({"verb": "enrol", "card": bad}, server.path)
    assert answer["error"] == "usage" and "no card 'no-such-card'" in answer["text"]
    assert not (tmp_path / "cards.toml").exists()


def test_a_peer_outside_the_group_is_refused(tmp_path):
    app = _App(tmp_path)
    server = OwnerSocket(app, tmp_path / "owner.sock", allowed=lambda uid, gid: False)
    server.start()
    try:
        answer = client.ask({"verb": "enrol", "card": CARD}, server.path)
    finally:
        server.stop()
    assert answer["error"] == "refused"
    assert app.loop.threads == [] and not (tmp_path / "cards.toml").exists()


def test_a_silent_client_holds_neither_the_loop_nor_another_client(served):
    _app, server = served
    silent = [socket.socket(socket.AF_UNIX) for _ in range(2)]
    for s in silent:
        s.connect(str(server.path))  # and never says a word
    try:
        started = time.monotonic()
        answer = client.ask({"verb": "list"}, server.path)
        assert answer["ok"]
        assert time.monotonic() - started < 3  # not after the silent ones' READ_SECONDS
    finally:
        for s in silent:
            s.close()


def test_a_full_queue_is_answered_busy_and_the_socket_lives_on(served):
    app, server = served
    app.loop.held.clear()  # the loop busy with something long
    for _ in range(5):  # one taken, four waiting: the queue is full
        app.loop.post_remote(_Noop())
    answer = client.ask({"verb": "list"}, server.path)
    assert answer["error"] == "busy"
    app.loop.held.set()
    time.sleep(0.1)
    assert client.ask({"verb": "list"}, server.path)["ok"]


class _Noop:
    def fn(self) -> None:
        pass


def test_no_socket_is_no_box_running(tmp_path):
    with pytest.raises(client.NotRunning):
        client.ask({"verb": "list"}, tmp_path / "owner.sock")
    (tmp_path / "owner.sock").touch()  # a file left behind, nothing listening
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(tmp_path / "gone.sock"))
    left.close()  # a socket whose box stopped
    with pytest.raises(client.NotRunning):
        client.ask({"verb": "list"}, tmp_path / "gone.sock")


# --- the command, with the box running and stopped ---------------------------------------------


def _cards(config: Path, env: dict, *args: str, prefix: tuple[str, ...] = ()):
    return subprocess.run(
        [*prefix, sys.executable, "-m", "companion", "cards", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 120  # a hang guard
    while not path.exists():
        assert time.monotonic() < deadline, f"no {path}"
        time.sleep(0.05)


def test_the_command_asks_the_running_box_and_writes_itself_once_it_stopped(tmp_path):
    config = box_config(tmp_path)
    sock = tmp_path / "run" / "owner.sock"
    sock.parent.mkdir()
    env = {**os.environ, protocol.SOCKET_VARIABLE: str(sock)}
    box = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(sock)
        enrol = _cards(config, env, "enrol", "04A1B2C4", "trapwords", "curse-echo")
        assert enrol.returncode == 0, enrol.stderr
        assert enrol.stdout.startswith("04A1B2C4: ")
        listed = _cards(config, env, "list")
        assert "04A1B2C4" in listed.stdout
        bad = _cards(config, env, "forget", "04A1B2C5")
        assert bad.returncode == 2 and "is not enrolled" in bad.stderr
    finally:
        box.send_signal(signal.SIGTERM)
        log = box.communicate(timeout=60)[1]
    assert box.returncode == 0, log
    assert "04A1B2C4: " in log and "enrolled from a shell (root)" in log
    assert not sock.exists()  # the box took its socket away
    forget = _cards(config, env, "forget", "04A1B2C4")  # the box stopped: done here
    assert forget.returncode == 0, forget.stderr
    assert Registry(tmp_path / "state" / "cards.toml").cards == {}


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to take CAP_DAC_OVERRIDE away",
)
def test_a_user_the_socket_refuses_is_told_to_use_sudo(tmp_path):
    sock = tmp_path / "owner.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    listener.listen(1)
    os.chown(sock, 12345, 12345)
    sock.chmod(0o660)
    config = box_config(tmp_path)
    env = {**os.environ, protocol.SOCKET_VARIABLE: str(sock)}
    as_a_user = ("setpriv", "--bounding-set=-dac_override,-dac_read_search")
    try:
        proc = _cards(config, env, "enrol", "04A1B2C4", "trapwords", "curse-echo", prefix=as_a_user)
    finally:
        listener.close()
    assert proc.returncode == 77, proc.stderr
    assert "only root and the group 12345 may ask it" in proc.stderr and "sudo" in proc.stderr
    assert not (tmp_path / "state" / "cards.toml").exists()


@pytest.fixture
def open_dir():
    """A directory any user may reach (pytest's own is root's 0700)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="tc-owner-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="root's command writing as the service's user")
def test_root_with_the_box_stopped_writes_as_the_state_dirs_owner(open_dir):
    config = box_config(open_dir)
    state = open_dir / "state"
    os.chown(state, 65534, 65534)
    state.chmod(0o750)
    env = {**os.environ, protocol.SOCKET_VARIABLE: str(open_dir / "none.sock")}
    enrol = _cards(config, env, "enrol", "04A1B2C4", "trapwords", "curse-echo")
    assert enrol.returncode == 0, enrol.stderr
    st = (state / "cards.toml").stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (65534, 65534, 0o640)
    forget = _cards(config, env, "forget", "04A1B2C4")
    assert forget.returncode == 0, forget.stderr
    st = (state / "cards.toml").stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (65534, 65534, 0o640)


# --- a file the box may not read: named with the fix, never set aside ---------------------------

AS_A_USER = ("setpriv", "--bounding-set=-dac_override,-dac_read_search")
needs_setpriv = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to take CAP_DAC_OVERRIDE away",
)

REGISTRY = '[cards."04A1B2C4"]\ngame = "trapwords"\ncard = "curse-echo"\nname = "Echo"\n'


@needs_setpriv
def test_a_start_names_a_registry_it_may_not_read_and_leaves_it(tmp_path):
    from test_damaged_state import run_until_ready

    config = box_config(tmp_path)
    cards = tmp_path / "state" / "cards.toml"
    cards.write_text(REGISTRY)
    os.chown(cards, 12345, 12345)
    cards.chmod(0o600)
    ready, log = run_until_ready(tmp_path, config, prefix=AS_A_USER)
    assert "READY=1" in ready
    assert "it is 12345:12345 0600" in log and f"sudo chown root:root {cards}" in log
    assert "left where it is" in log and "Traceback" not in log
    assert not list(cards.parent.glob("cards.toml?*"))  # nothing moved aside
    assert cards.read_text() == REGISTRY
    listed = subprocess.run(
        [*AS_A_USER, sys.executable, "-m", "companion", "cards", "list", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 77, listed.stderr
    assert "12345:12345 0600" in listed.stderr and "sudo chown" in listed.stderr


def test_a_registry_it_may_not_read_is_never_written_over(tmp_path, monkeypatch):
    from companion.core import statefile

    cards = tmp_path / "cards.toml"
    cards.write_text(REGISTRY)
    refusal = statefile.NoAccess(cards, "cannot be opened", "sudo chown ...")
    monkeypatch.setattr(statefile, "blocks", lambda path: refusal)

    def refused(path, cap):
        raise refusal

    monkeypatch.setattr(statefile, "read_text", refused)
    registry, message = Registry.open_or_set_aside(cards)
    assert "left where it is" in message and registry.cards == {}
    from companion.core.registry import Card

    with pytest.raises(PermissionError):
        registry.enrol(Card("0102AB", "trapwords", "curse-echo", "Echo"))
    assert cards.read_text() == REGISTRY
    monkeypatch.undo()  # given back: read at once
    assert registry.lookup("04A1B2C4").name == "Echo"


@needs_setpriv
def test_the_owner_without_sudo_on_a_stopped_box_is_told_to_use_sudo(open_dir):
    config = box_config(open_dir)
    (open_dir / "state").chmod(0o750)  # root's, as the service's is to the owner
    env = {**os.environ, protocol.SOCKET_VARIABLE: str(open_dir / "none.sock")}
    as_nobody = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    proc = _cards(config, env, "forget", "04A1B2C4", prefix=as_nobody)
    assert proc.returncode == 77, proc.stderr
    assert "not writable (Permission denied)" in proc.stderr
    assert proc.stderr.rstrip().endswith("run the command with sudo")
