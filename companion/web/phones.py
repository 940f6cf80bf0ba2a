"""The phones at the table: a face of the box served over HTTP on the box's own network.

Imported only when ``[phones] enabled = true`` (or ``sim --phones PORT``). This is what is the
phones' own; the serving is the same WebServer as the simulator's page (server.py), with the
phones' routes (phone_routes.py). After each refresh the loop hands the phone face a snapshot
(``show``), which turns it into what a phone may see (companion/web/public.py) and, when that
changed, shows it to the server; each open event stream keeps only the newest. A request never
runs game code itself: a press is posted onto the loop's queue, and an answer that needs the
box's data (the card list, forgetting a card, an enrolment run) is asked through the queue
with a time limit, so a slow phone never holds up the box.

The port is bound on the loop's thread: if it is taken, the box plays on without phones, says
so on the OLED, in STATUS and in the log, and tries again every ``RETRY_SECONDS`` (a deadline
on the loop's clock). aiohttp is loaded on a thread of its own, so READY does not wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import importlib.util
import logging
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.app.phones import box_only
from companion.core import formats
from companion.core.events import Call
from companion.ui import menus
from companion.web import players_api
from companion.web.listen import bind
from companion.web.pace import Pace
from companion.web.pairing import SAVE_SECONDS, Pairing
from companion.web.public import phone_view

log = logging.getLogger(__name__)

RETRY_SECONDS = 30.0
RESPAWN_SECONDS = 5.0  # the phones' server process started again after it ended
ANSWER_SECONDS = 2.0  # how long a request waits for the loop to answer
MINUTE = 60.0
MINUTE_KEY = "phones-minute"  # the redraw of the pairing code's minutes left
TIME_KEY = "phones-time"  # the paired phones' time left, written again
ON_THE_BOX = "(the code is on the box)"  # what a phone sees where the OLED shows the code


@dataclass(frozen=True)
class PhoneView:
    """What the phones show the server: a view a phone may see, numbered as it changes."""

    seq: int
    view: dict[str, Any]


class PhoneService:
    """Pairing, the phone face and its server, owned by the App as ``app.phones``."""

    def __init__(
        self,
        app: Any,
        port: int,
        host: str = "",
        wall: Callable[[], float] = time.time,
        apart: bool = False,
        link_path: Path | None = None,
    ) -> None:
        self.app = app
        # apart: the server in a process of its own (phones_process.py), a child of this one,
        # reached over a UNIX socket (link.py); this process then holds no network socket
        self.apart = apart or link_path is not None
        # link_path: systemd's phones' unit connects there (nothing is started from here);
        # None: a child process is started, on a link in a private temporary folder
        self.link_path = link_path
        self.link: Any = None  # companion.web.link_box.LinkHost, when apart
        self.child: subprocess.Popen[bytes] | None = None
        self.linked = False
        self.sent_phones: dict[str, float] | None = None
        self.port = port
        self.host = host  # "" = every address of the box (IPv6 and IPv4); the sim: 127.0.0.1
        self.pace = Pace()  # each phone's presses at a person's pace (pace.py)
        self.pairing = Pairing(
            app.config.state_dir(), clock=app.clock.now, wall=wall, on_change=app.phones_changed
        )
        self.server: Any = None  # companion.web.server.WebServer once serving
        self.thread: threading.Thread | None = None  # loads aiohttp and starts the server
        self.ready = threading.Event()  # set once the server answers
        self.lock = threading.Lock()  # the view and the server, handed over between threads
        self.taken = False
        self.missing = ""  # why the phones cannot be served at all (aiohttp not installed)
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.stopped = False

    # --- loop thread -------------------------------------------------------------------------

    def start(self) -> None:
        """Bind the port and start serving; if it is taken, say so and try again later."""
        app = self.app
        if self.pairing.problem:  # logged by the pairing; no phone is paired now
            app.notice(
                formats.notice("Phones file")
                if self.pairing.newer
                else ("Phones file unreadable", "set aside, see log")
            )
        app.phones = self
        app.faces.add(self)
        if importlib.util.find_spec("aiohttp") is None:
            self.missing = "aiohttp is not installed"
            log.error(
                "phones: %s; the box plays on without phones (install it: "
                "pip install 'trap-companion[web]', or sudo make install again)",
                self.missing,
            )
            app.notice(("Phones off:", "aiohttp missing,", "see the log"))
            return
        if getattr(app.menu, "on_pick", None) == "pick_game":  # offer pairing there too
            app.open_game_menu()
        self._keep_time()
        self._listen()
        app.refresh()

    def _keep_time(self) -> None:
        """The paired phones' time left, written again every SAVE_SECONDS (a deadline on the
        loop's clock): a restart takes their lives up where they were, whatever the wall
        clock says then (pairing.py)."""
        if self.stopped:
            return
        self.pairing.keep_time()
        self.app.loop.call_later(SAVE_SECONDS, self._keep_time, TIME_KEY)

    def _listen(self) -> None:
        if self.stopped:
            return
        if self.apart:
            self._start_apart()
            return
        try:
            sock = bind(self.host, self.port)
        except OSError as err:
            first = not self.taken
            self.taken = True
            why = "taken" if err.errno == errno.EADDRINUSE else f"unusable ({err.strerror})"
            if first:
                log.warning(
                    "phones: port %d is %s; the box plays on and tries again every %d s",
                    self.port,
                    why,
                    RETRY_SECONDS,
                )
                self.app.notice((f"Phones: port {self.port}", f"is {why},", "retrying"))
            else:
                log.debug("phones: port %d still %s", self.port, why)
                self.app.refresh()  # STATUS says so (the notice refreshed the first time)
            self.app.loop.call_later(RETRY_SECONDS, self._listen, "phones-retry")
            return
        was_taken, self.taken = self.taken, False
        # aiohttp is imported on the server's own thread: READY is not held up by it.
        self.thread = threading.Thread(target=self._serve, args=(sock,), name="phones")
        self.thread.daemon = True
        self.thread.start()
        log.info("phones: listening on port %d%s", self.port, " (free again)" if was_taken else "")
        if was_taken:
            self.app.refresh()

    # --- apart: the server in a process of its own ------------------------------------------

    def _start_apart(self) -> None:
        """Loop thread: listen on the link's UNIX socket, then start the server's process."""
        from companion.web.link_box import LinkHost

        if self.link is None:
            path = self.link_path or (
                Path(tempfile.mkdtemp(prefix="trap-companion-phones-")) / "link.sock"
            )
            self.link = LinkHost(self, path)
            self.link.start()
            if self.view is not None:
                self.link.send_view(self.seq, self.view)
            self.send_phones()
        self._spawn()

    def _spawn(self) -> None:
        if self.link_path is not None:  # systemd starts the server (trap-companion-phones)
            return
        if self.stopped or (self.child is not None and self.child.poll() is None):
            return
        command = [sys.executable, "-m", "companion.web.phones_process", "--with-parent"]
        command += ["--link", str(self.link.path), "--port", str(self.port), "--host", self.host]
        self.child = subprocess.Popen(command, stdin=subprocess.PIPE)
        log.info("phones: the phones' server started (pid %d)", self.child.pid)
        threading.Thread(target=self._watch, args=(self.child,), daemon=True).start()

    def _watch(self, child: subprocess.Popen[bytes]) -> None:
        """Its own thread: the server's process ending is told on the loop."""
        code = child.wait()
        if not self.stopped:
            self.app.loop.post(Call(lambda: self._child_ended(child, code)))

    def _child_ended(self, child: subprocess.Popen[bytes], code: int) -> None:
        if self.stopped or child is not self.child:
            return
        log.warning(
            "phones: the phones' server ended (exit status %s); the box plays on and starts it "
            "again in %d s",
            code,
            RESPAWN_SECONDS,
        )
        self.linked = False
        self.app.notice(("Phones unavailable", "the game goes on"))
        self.app.loop.call_later(RESPAWN_SECONDS, self._spawn, "phones-respawn")

    def link_changed(self, up: bool) -> None:
        """The link's threads: the server's process linked or gone, told on the loop."""
        self.app.loop.post(Call(lambda: self._link_changed(up)))

    def _link_changed(self, up: bool) -> None:
        if self.stopped or up == self.linked:
            return
        self.linked = up
        if up:
            log.info("phones: the phones' server is linked")
            self.ready.set()
            self.send_phones()
            self.app.refresh()
        else:
            log.warning("phones: the link to the phones' server is gone; the box plays on")
            self.app.notice(("Phones unavailable", "the game goes on"))

    def send_phones(self) -> None:
        """The paired tokens' hashes and seconds left, to the server's process when changed."""
        if self.link is None:
            return
        now = self.app.clock.now()
        left = {h: round(until - now, 1) for h, until in dict(self.pairing.phones).items()}
        if left.keys() != (self.sent_phones or {}).keys() or not self.linked:
            self.sent_phones = left
            self.link.send_phones(left)

    def _serve(self, sock: socket.socket) -> None:
        """Its own thread: load aiohttp, start the web server on ``sock``, then end (the server
        runs on a thread of its own)."""
        try:
            from companion.web.guard import Guard, own_names
            from companion.web.phone_routes import PhoneRoutes
            from companion.web.server import WebServer

            host = self.host or sock.getsockname()[0]
            guard = Guard.for_names(own_names())
            server = WebServer(host, self.port, guard, [PhoneRoutes(self)], sock=sock)
            if self.stopped:  # the box stopped while aiohttp was loading
                sock.close()
                return
            with self.lock:  # from now on the loop shows each new view to it
                self.server = server
                if self.view is not None:
                    server.show(PhoneView(self.seq, self.view))
            server.start()
            if self.stopped:  # ... or while the server was starting
                server.stop()
                return
            self.ready.set()
        except Exception:
            log.exception("phones: the server stopped; the box plays on without phones")
            sock.close()

    def show(self, snapshot: Any) -> None:
        """A face's show: what a phone may see now, shown to the server when it changed."""
        self._next_minute()
        view = self.make_view(snapshot)
        if view == self.view:
            return
        with self.lock:
            self.view = view
            self.seq += 1
            if self.server is not None:
                self.server.show(PhoneView(self.seq, view))
        if self.link is not None:
            self.link.send_view(self.seq, view)
            self.send_phones()

    def _next_minute(self) -> None:
        """While a pairing code is shown, the box is redrawn as its minutes left go down (the
        OLED says "5 min", "4 min"...): a deadline on the loop's clock, one at a time."""
        loop = self.app.loop
        deadline = self.pairing.code_deadline()
        status, left = self.pairing.code_status()
        if deadline is None or status != "showing" or left <= MINUTE:
            loop.cancel(MINUTE_KEY)
            return
        whole = -(-left // MINUTE)  # the minutes the screen says now, rounded up
        loop.call_at(deadline - (whole - 1) * MINUTE, self.app.refresh, MINUTE_KEY)

    def make_view(self, snapshot: Any) -> dict[str, Any]:
        """What ``GET /api/state`` answers: a replay line's keys (game, screen, leds, sounds),
        with ``state`` the public part only (companion/web/public.py), plus the enrolment run
        in progress. While the box shows its pairing code or asks "Forget phones?" the phones
        keep the view from before: nothing a phone sees says that a code is shown (a paired
        phone cannot press there either, app/phones.py)."""
        app = self.app
        if self.view is not None and box_only(app.menu):
            return self.view
        state = players_api.named(phone_view(snapshot.game, snapshot.state, app.records), app)
        run = app.menu if isinstance(app.menu, menus.EnrolRun) else None
        return {
            "game": snapshot.game,
            "screen": self.without_code(snapshot.screen),
            "leds": {"led": [round(c, 3) for c in snapshot.led]},
            "sounds": list(snapshot.sounds),
            "state": state,
            "enrol": None
            if run is None
            else {"card": run.kind.name, "count": run.count, "said": run.said},
        }

    def without_code(self, lines: Any) -> list[str]:
        """The OLED's lines with the pairing code left out: a code is read off the box only."""
        code = self.pairing.code
        digits = code.digits if code is not None else None
        if not digits:
            return list(lines)
        return [ON_THE_BOX if digits in "".join(line.split()) else line for line in lines]

    def status(self) -> str:
        if self.missing:
            return f"phones off: {self.missing}"
        if self.apart and not self.linked:
            return "phones unavailable"
        if self.taken:
            return f"phones: port {self.port} taken (retrying)"
        return f"phones on port {self.port}"

    def address(self) -> str:
        """What to type on a phone (the box's address on its network, best guess)."""
        if self.host:
            return f"{self.host}:{self.port}"
        return f"{own_address()}:{self.port}"

    def stop(self) -> None:
        self.stopped = True
        self.app.loop.cancel("phones-retry")
        self.app.loop.cancel(MINUTE_KEY)
        self.app.loop.cancel(TIME_KEY)
        self.app.loop.cancel("phones-respawn")
        self.pairing.keep_time()
        if self.link is not None:
            self.link.stop()
            if self.link_path is None:
                with contextlib.suppress(OSError):
                    self.link.path.parent.rmdir()
        if self.child is not None:
            self.child.terminate()
            try:
                self.child.wait(2.0)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()
        if self.thread is not None and self.ready.is_set():
            self.thread.join(2.0)  # a thread still loading aiohttp ends by itself
        if self.server is not None:
            self.server.stop()
        self.server = None

    # --- for the server's thread: everything goes through the loop's queue ------------------

    def press(self, button: str, long: bool, then: Callable[[], None] | None = None) -> bool:
        """A phone's press onto the loop's queue for remotes, behind the box's own inputs;
        False (nothing queued) when that queue is full. ``then`` runs on the loop thread once
        the press was handled (journaled and drawn, or refused by the rules). A phone's press is
        marked as a remote's (``App.remote_press``): it cannot pair nor forget phones."""

        def run() -> None:
            try:
                self.app.remote_press(button, long)
            finally:
                if then is not None:
                    then()

        return self.app.loop.post_remote(Call(run))

    def ask(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the loop thread and wait (at most ANSWER_SECONDS) for its answer."""
        return players_api.on_loop(self.app, fn, ANSWER_SECONDS)

    async def pair(self, code: Any, source: Any) -> Any:
        """A pairing try (pairing.py), off the server's event loop: it may write phones.json."""
        return await asyncio.to_thread(self.pairing.attempt, code, source)

    def request_fn(self, what: str, args: dict[str, Any]) -> Callable[[], Any]:
        """What a phone's request runs on the loop thread: ``cards``, ``forget`` (``uid``) or
        ``enrol`` (``card`` and its ``values``)."""
        if what == "cards":
            return self.cards
        if what in players_api.ASKS:  # players and plays (issue 48)
            return players_api.request_fn(self.app, what, args)
        if what == "forget":
            uid = str(args.get("uid", ""))
            return lambda: self.forget_card(uid)
        if what == "enrol":
            card, values = str(args.get("card", "")), args.get("values") or {}
            return lambda: self.start_enrol(card, {str(k): str(v) for k, v in values.items()})
        raise ValueError(f"no request {what!r}")

    async def request(self, what: str, args: dict[str, Any]) -> Any:
        """A phone's request answered on the loop (``ask``), off the server's event loop."""
        return await asyncio.to_thread(self.ask, self.request_fn(what, args))

    def cards(self) -> dict[str, Any]:
        """Loop thread: the enrolled cards of the game in play and what can be enrolled."""
        app = self.app
        session = app.session
        if session is None:
            return {"game": None, "cards": [], "kinds": []}
        game = session.name
        cards = [
            {"uid": c.uid, "name": c.name, "kind": c.card, "values": dict(c.fields)}
            for c in sorted(app.registry.cards.values(), key=lambda c: (c.name, c.uid))
            if c.game == game
        ]
        kinds = []
        for kind in session.rules.catalog():
            fields = []
            for i, name in enumerate(kind.fields):
                low, high = kind.field_range(i)
                fields.append(
                    {"name": name, "low": low, "high": high, "start": kind.field_start(i)}
                )
            kinds.append({"id": kind.id, "name": kind.name, "fields": fields})
        return {"game": game, "cards": cards, "kinds": kinds}

    def forget_card(self, uid: str) -> dict[str, Any]:
        """Loop thread: forget one enrolled card of the game in play."""
        app = self.app
        card = app.registry.lookup(uid)
        if card is None or uid not in app.registry.cards:
            raise LookupError(f"no enrolled card {uid}")
        app.registry.forget(uid)
        app.note(f"card {uid} ({card.name}) forgotten from a phone")
        return {"forgotten": uid, "name": card.name}

    def start_enrol(self, kind_id: str, values: dict[str, str]) -> dict[str, Any]:
        """Loop thread: open an enrolment run on the box, as the game menu's "Enrol copies"."""
        app = self.app
        session = app.session
        if session is None:
            raise LookupError("no game is being played: start one on the box first")
        kind = next((k for k in session.rules.catalog() if k.id == kind_id), None)
        if kind is None:
            raise LookupError(f"{session.name} has no card {kind_id!r}")
        chosen: dict[str, int] = {}
        for i, name in enumerate(kind.fields):
            low, high = kind.field_range(i)
            raw = values.get(name, str(kind.field_start(i)))
            if not (raw.isascii() and raw.lstrip("-").isdigit()) or not low <= int(raw) <= high:
                raise ValueError(f"{name} must be a whole number {low}..{high}")
            chosen[name] = int(raw)
        app.enrol_copies(kind, chosen, source="a phone")
        return {"card": kind.name, "count": 0}


def own_address() -> str:
    """The box's address on its network: the one a packet out would leave from (no packet is
    sent). Falls back to the host name when there is no network."""
    with contextlib.suppress(OSError):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.connect(("10.255.255.255", 9))
            return s.getsockname()[0]
        finally:
            s.close()
    return socket.gethostname()
