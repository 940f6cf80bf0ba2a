"""Issue 33 point 1: the phones' server in a process of its own (`[phones] server = "process"`),
talking to the box's process over a UNIX socket with a small versioned protocol (link.py). The
box's process holds no network socket; the server's crash or restart never touches play."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.web import link
from companion.web.link import MAX_LINE, MAX_WAITING, Lines, LinkError, Outbox
from companion.web.phones import PhoneService
from tests.phones_support import LiveBox, pair, request

# --- the protocol ----------------------------------------------------------------------------

messages = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=10,
    ),
    max_size=5,
).map(lambda d: {**d, "t": "view"})


@given(st.lists(messages, max_size=10), st.integers(min_value=1, max_value=50))
def test_lines_in_any_pieces_give_back_every_message(sent: list[dict], piece: int) -> None:
    data = b"".join(link.encode(m) for m in sent)
    lines = Lines()
    got = []
    for i in range(0, len(data), piece):
        got += [link.decode(line) for line in lines.feed(data[i : i + piece])]
    assert got == sent


@pytest.mark.parametrize(
    "line",
    [b"not json", b"[1, 2]", b'{"no": "kind"}', b"[" * 100 + b"]" * 100, b'{"t": 1}'],
)
def test_a_line_that_is_not_a_message_ends_the_link(line: bytes) -> None:
    with pytest.raises(LinkError):
        link.decode(line)


def test_a_line_over_the_limit_ends_the_link_before_it_is_whole() -> None:
    with pytest.raises(LinkError):
        Lines().feed(b"x" * (MAX_LINE + 1))
    with pytest.raises(LinkError):
        link.encode({"t": "view", "view": "x" * MAX_LINE})


def test_another_version_is_refused() -> None:
    link.check_hello(link.hello())
    with pytest.raises(LinkError):
        link.check_hello({"t": "hello", "v": link.VERSION + 1})


def test_the_outbox_keeps_answers_in_order_and_only_the_newest_view() -> None:
    box = Outbox()
    for seq in range(5):
        box.latest({"t": "view", "seq": seq})
    assert all(box.answer({"t": "answer", "id": i}) for i in range(MAX_WAITING))
    assert not box.answer({"t": "answer", "id": -1})  # bounded
    taken = [box.take() for _ in range(MAX_WAITING + 1)]
    assert [m["id"] for m in taken[:MAX_WAITING]] == list(range(MAX_WAITING))
    assert taken[-1] == {"t": "view", "seq": 4}
    box.close()
    assert box.take() is None


# --- the box with its phones' server apart ---------------------------------------------------


@pytest.fixture
def apart(tmp_path: Path) -> Iterator[LiveBox]:
    box = LiveBox(tmp_path)
    box.phones = PhoneService(box.app, box.port, host="127.0.0.1", apart=True)
    box.start()
    try:
        assert box.phones.ready.wait(20), "the phones' server never linked"
        yield box
    finally:
        box.stop()


def _network_sockets(pid: int) -> list[str]:
    """The TCP/UDP sockets (by inode) a process holds, from /proc."""
    inodes = set()
    for kind in ("tcp", "tcp6", "udp", "udp6"):
        with contextlib.suppress(FileNotFoundError):
            for row in Path(f"/proc/{pid}/net/{kind}").read_text().splitlines()[1:]:
                inodes.add(row.split()[9])
    held = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:[") and target[8:-1] in inodes:
                held.append(target)
    return held


def test_the_box_s_process_holds_no_network_socket_and_phones_play_as_before(apart) -> None:
    box = apart
    assert _network_sockets(os.getpid()) == []  # the port is the child's
    assert _network_sockets(box.phones.child.pid)
    assert box.app.status_line().endswith(f"phones on port {box.port}")
    box.on_loop(lambda: box.app.new_game("dice", {}))
    assert request(box, "GET", "/api/state")[0] == 401  # authorised in the child
    token = pair(box)
    status, _, body = request(box, "POST", "/api/press/green", cookie=token)
    assert status == 200 and body["taken"]  # handled on the box before the answer
    assert box.on_loop(lambda: len(box.app.session.state.dice)) == 1
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        state = request(box, "GET", "/api/state", cookie=token)[2]
        if state.get("state", {}).get("facts"):
            break
        time.sleep(0.05)
    assert state["game"] == "dice" and state["state"]["facts"]
    assert request(box, "GET", "/api/cards", cookie=token)[2]["game"] == "dice"
    status, _, body = request(box, "POST", "/api/cards/04AA/forget", cookie=token)
    assert status == 404 and "no enrolled card" in body["error"]
    status, _, body = request(box, "POST", "/api/pair", "code=000000")
    assert status == 403


def test_the_server_s_crash_never_touches_play_and_it_comes_back(apart) -> None:
    box = apart
    box.on_loop(lambda: box.app.new_game("dice", {}))
    token = pair(box)
    os.kill(box.phones.child.pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and box.phones.linked:
        time.sleep(0.05)
    assert box.app.status_line().endswith("phones unavailable")
    assert box.on_loop(lambda: box.app.toast[0].lines[0]) == "Phones unavailable"
    box.controls.press("green")  # the box's own buttons play on
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if box.on_loop(lambda: len(box.app.session.state.dice)) == 1:
            break
        time.sleep(0.05)
    assert box.on_loop(lambda: len(box.app.session.state.dice)) == 1
    box.phones.ready.clear()
    deadline = time.monotonic() + 20  # started again after RESPAWN_SECONDS
    while time.monotonic() < deadline and not box.phones.linked:
        time.sleep(0.1)
    assert box.phones.linked
    status, _, _ = request(box, "POST", "/api/press/green", cookie=token)  # still paired
    assert status == 200
    assert box.on_loop(lambda: len(box.app.session.state.dice)) == 2


def test_a_stop_ends_the_server_s_process_and_frees_the_link(tmp_path: Path) -> None:
    box = LiveBox(tmp_path)
    box.phones = PhoneService(box.app, box.port, host="127.0.0.1", apart=True)
    box.start()
    assert box.phones.ready.wait(20)
    child, path = box.phones.child, box.phones.link.path
    box.stop()
    assert child.poll() is not None
    assert not path.exists()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", box.port), timeout=1):
        pass


def test_run_under_the_phones_drop_in_serves_through_the_phones_own_process(
    tmp_path: Path,
) -> None:
    """As systemd runs them with phones on: `run` with TRAP_COMPANION_PHONES_LINK (the drop-in)
    listens only on that UNIX socket and starts nothing; the phones' unit's command connects
    and serves the port; stopping the phones' server leaves the box running."""
    import subprocess
    import sys

    from tests.test_phone_floods_stop import _quiet_port

    port = _quiet_port()
    state, sock = tmp_path / "state", tmp_path / "run" / "phones.sock"
    config = tmp_path / "config.toml"
    config.write_text(
        '[hardware]\npin_factory = "mock"\n[display]\ndriver = "dummy"\n[reader]\ntype = "none"\n'
        f'[state]\ndir = "{state}"\n[phones]\nenabled = true\nport = {port}\n'
    )
    root = str(Path(__file__).parents[1])
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": root, "TRAP_COMPANION_PHONES_LINK": str(sock)}
    log = (tmp_path / "run.log").open("w")
    game = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    server = None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not sock.exists():
            time.sleep(0.1)
        assert sock.exists(), (tmp_path / "run.log").read_text()
        command = [sys.executable, "-m", "companion.web.phones_process", "--config"]
        command += [str(config), "--link", str(sock), "--host", "127.0.0.1"]
        server = subprocess.Popen(
            command,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": root},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        status = 0
        while time.monotonic() < deadline and status != 401:
            with contextlib.suppress(OSError):
                conn = http_connection(port)
                conn.request("GET", "/api/state", headers={"Host": f"127.0.0.1:{port}"})
                status = conn.getresponse().status
                conn.close()
            time.sleep(0.2)
        assert status == 401  # served, and authorised against the box's paired phones
        assert _network_sockets(game.pid) == []
        assert _network_sockets(server.pid)
        server.terminate()
        server.wait(10)
        time.sleep(0.5)
        assert game.poll() is None  # the box plays on
        game.send_signal(signal.SIGTERM)
        assert game.wait(10) == 0
    finally:
        for proc in (server, game):
            if proc is not None and proc.poll() is None:
                proc.kill()
        log.close()
    text = (tmp_path / "run.log").read_text()
    assert "the phones' server is linked" in text
    assert "the link to the phones' server is gone" in text
    assert "Traceback" not in text


def http_connection(port: int):
    import http.client

    return http.client.HTTPConnection("127.0.0.1", port, timeout=2)


def test_a_phone_is_not_sent_to_pair_again_before_the_box_said_who_is_paired(
    tmp_path: Path,
) -> None:
    """The phones' own process up before its link to the box (the box starting, or slow): a
    phone's cookie is answered 503 "busy" (its page retries), not 401 (its page would show
    pairing to a phone that is paired); a request with no cookie is still 401."""
    import subprocess
    import sys
    from types import SimpleNamespace

    from tests.test_phone_floods_stop import _quiet_port

    port = _quiet_port()
    root = str(Path(__file__).parents[1])
    link_path = str(tmp_path / "none")
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "companion.web.phones_process", "--link", link_path),
            *("--port", str(port), "--host", "127.0.0.1"),
        ],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": root},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120  # a hang guard: an emulated Pi starts it slowly
        while True:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        phone = SimpleNamespace(port=port)
        status, headers, body = request(phone, "POST", "/api/press/green", cookie="7" * 64)
        assert status == 503 and headers["Retry-After"] == "1" and "busy" in body["error"]
        assert request(phone, "GET", "/api/state")[0] == 401
    finally:
        server.kill()
        server.wait()
