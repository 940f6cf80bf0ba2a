"""A simulated box on the real clock with its phone face on 127.0.0.1 (what `sim --phones PORT`
runs, without the terminal), for the HTTP and browser tests of the phones."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.core.clock import RealClock
from companion.core.config import Config
from companion.core.events import Call, Stop
from companion.sim.box import SimulatedBox
from companion.sim.controls import SimControls
from companion.web.phones import PhoneService


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def taken_port() -> tuple[int, socket.socket]:
    """A port another program listens on: the port and that program's socket (close it to
    free the port)."""
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    return blocker.getsockname()[1], blocker


class LiveBox:
    def __init__(
        self,
        state_dir: Path,
        port: int | None = None,
        reader: str = "pn532",
        apart: bool = False,
    ) -> None:
        config = Config()
        config = config.__class__(
            **{
                **config.__dict__,
                "reader": config.reader.__class__(
                    type=reader,
                    port=config.reader.port,
                    removal_seconds=config.reader.removal_seconds,
                ),
            }
        )
        self.box = SimulatedBox(config, state_dir=state_dir, clock=RealClock(), demo_cards=True)
        self.app = self.box.app
        self.controls = SimControls(self.box)
        self.port = port or free_port()
        # apart: the phones' server in a process of its own (issue 33), as `run` has it
        self.phones = PhoneService(self.app, self.port, host="127.0.0.1", apart=apart)
        self.thread = threading.Thread(target=self.app.loop.run, name="loop", daemon=True)

    def start(self) -> LiveBox:
        self.app.start()
        self.phones.start()
        self.thread.start()
        if self.phones.thread is not None or self.phones.apart:
            # A hang guard: its child answers in 16-36 s on an emulated Pi under load.
            assert self.phones.ready.wait(120), "the phone server did not start"
        return self

    def on_loop(self, fn: Any, timeout: float = 5.0) -> Any:
        """Run ``fn`` on the loop thread and return its answer: after every phone's input
        queued before it (the phones' queue, as a phone's request would be), or straight on
        the box's queue when the phones' is full."""
        done = threading.Event()
        out: list[Any] = []

        def run() -> None:
            try:
                out.append(fn())
                self.app.refresh()  # as after any input
            finally:
                done.set()

        if not self.app.loop.post_remote(Call(run)):
            self.app.loop.post(Call(run))
        assert done.wait(timeout), "the loop did not answer"
        return out[0] if out else None

    def stop(self) -> None:
        self.phones.stop()
        self.app.loop.post(Stop("test over"))
        self.thread.join(5)
        self.box.close()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextlib.contextmanager
def live_box(state_dir: Path, **kwargs: Any) -> Iterator[LiveBox]:
    box = LiveBox(state_dir, **kwargs).start()
    try:
        yield box
    finally:
        box.stop()


def request(
    box: LiveBox,
    method: str,
    path: str,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
    cookie: str | None = None,
    origin: bool = True,
    source: str = "127.0.0.1",
) -> tuple[int, dict[str, str], Any]:
    """One HTTP request as a browser on the phone would send it (Origin on a POST), from
    ``source`` (any of 127.0.0.0/8: another machine on the network, as the box sees it)."""
    conn = http.client.HTTPConnection("127.0.0.1", box.port, timeout=10, source_address=(source, 0))
    sent = {"Host": f"127.0.0.1:{box.port}"}
    if method == "POST":
        sent["Content-Type"] = "application/x-www-form-urlencoded"
        if origin:
            sent["Origin"] = f"http://127.0.0.1:{box.port}"
    if cookie:
        sent["Cookie"] = f"tc_phone={cookie}"
    sent.update(headers or {})
    data = body.encode() if isinstance(body, str) else body
    conn.request(method, path, body=data, headers=sent)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = raw
    return response.status, dict(response.getheaders()), parsed


def pair(box: LiveBox) -> str:
    """Pair as a phone would: the code off the box, then POST /api/pair; the cookie's token."""
    code = box.on_loop(lambda: (box.app.phone_command("pair_phone"), box.app.menu.screen())[1])
    digits = code.big.replace(" ", "")
    status, headers, _ = request(box, "POST", "/api/pair", f"code={digits}")
    assert status == 200, status
    cookie = headers["Set-Cookie"]
    return cookie.split("tc_phone=", 1)[1].split(";", 1)[0]


def wait_for(predicate, seconds: float = 5.0):
    """Until ``predicate`` gives something (a guard of a few seconds against a hang)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = predicate()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("the box did not get there")
