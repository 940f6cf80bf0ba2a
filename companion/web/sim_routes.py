"""The simulator's page and API (`trap-companion sim --web`).

    GET  /                  the page (static/index.html, app.js, style.css)
    GET  /api/state         what a replay line prints for this moment (game, screen, leds,
                            sounds, state, log) plus the reader, the LED pattern and ``seq``
    GET  /api/events        the same, pushed as Server-Sent Events with the OLED as a PNG
    GET  /api/display.png   the OLED's pixels
    GET  /api/cards         the demo deck: uid, name, game and kind of each card; the hold time;
                            each sound cue's name in words
    GET  /api/sounds        each sound cue as [frequency in Hz or null for a rest, seconds]
    POST /api/press/{button}[?long=1]    press a button (up, down, ok, back, green, red)
    POST /api/tap/{uid}     lay a card on the reader (a 400 says in ``say``, in plain words,
                            what a card UID looks like)
    /api/seats, /api/records, /api/export/..., /api/players/...
                            the players and plays, as a paired phone has them
                            (players_routes.py), asked on the box's loop

A press or tap is 202 when posted to the box, 400 for an unknown button or a UID the reader
cannot read, 429 when it comes faster than a finger (dropped, as the terminal drops it).
"""

from __future__ import annotations

import base64
import re
import tomllib
from importlib import resources
from typing import Any

from aiohttp import web

from companion.faces.face import BUTTONS, Controls
from companion.faces.snapshot import Snapshot
from companion.web.players_routes import PlayersRoutes, Request, static
from companion.web.server import WebServer
from companion.web.static_files import StaticFiles

PAGE = {  # compressed, cacheable by version (static_files.py)
    "/": ("index.html", "text/html"),
    "/static/app.js": ("app.js", "text/javascript"),
    "/static/style.css": ("style.css", "text/css"),
    **static("/static/"),  # players_face.js and the records, as the phones have them
}
# What a card UID is, in plain words, for the reader the box has (said beside the UID box).
# What the page's Card UID box takes: hex digits, groups parted by one ":", "-", "." or space
# (as labels print them); not a leading sign ("-1") nor Python's digit underscores.
UID_TYPED = re.compile(r"[0-9A-Fa-f]+(?:[:.\- ][0-9A-Fa-f]+)*")
UID_CHARS = frozenset("0123456789abcdefABCDEF:.-_ ")
UID_HINTS = {
    "pn532": "use 4, 7 or 10 bytes in hex, e.g. 04A1B2C3",
    "rdm6300": "use up to 10 hex digits, e.g. 0014008EC7",
}
NOTES = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}


def note_hz(note: str) -> float | None:
    """A note name (A4, C#6, Bb5) as a frequency; "rest" is None."""
    if note == "rest":
        return None
    name, rest = note[0].upper(), note[1:]
    shift = 0
    while rest[:1] in ("#", "b"):
        shift += 1 if rest[0] == "#" else -1
        rest = rest[1:]
    midi = 12 * (int(rest) + 1) + NOTES[name] + shift
    return round(440.0 * 2 ** ((midi - 69) / 12), 2)


def sound_cues() -> dict[str, list[tuple[float | None, float]]]:
    text = resources.files("companion.data").joinpath("sounds.toml").read_text("utf-8")
    cues = tomllib.loads(text)["cues"]
    return {cue: [(note_hz(n), float(s)) for n, s in notes] for cue, notes in cues.items()}


def sound_names() -> dict[str, str]:
    """Each cue's meaning in words (sounds.toml [names]), for the page's list of sounds."""
    text = resources.files("companion.data").joinpath("sounds.toml").read_text("utf-8")
    return dict(tomllib.loads(text).get("names", {}))


SOUND_NAMES = sound_names()


def state_of(snapshot: Snapshot) -> dict[str, Any]:
    """The answer of /api/state: a replay line's fields for this moment, and a little more."""
    out = snapshot.replay_line()
    out.update(
        seq=snapshot.seq,
        t=round(snapshot.t, 3),
        title=snapshot.title,
        reader=snapshot.reader,
        pattern=snapshot.pattern,
    )
    return out


def event_of(snapshot: Snapshot) -> dict[str, Any]:
    """One event of the stream: the state and the OLED as a PNG data URL."""
    out = state_of(snapshot)
    out["png"] = "data:image/png;base64," + base64.b64encode(snapshot.png).decode("ascii")
    out["size"] = list(snapshot.size)
    return out


def _problem(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status)


class SimRoutes:
    def __init__(
        self,
        controls: Controls,
        deck: list[tuple[str, ...]],  # uid, name, game and (optional) the card's kind
        hold_seconds: float,
        reader: str = "",
        request: Request | None = None,
    ) -> None:
        """``reader``: the simulated reader's kind, for what a card UID looks like;
        ``request``: how the players' asks reach the box (players_routes.LoopAsk)."""
        self.controls = controls
        self.request = request
        self.reader = reader
        fields = ("uid", "name", "game", "kind")
        self.deck = [dict(zip(fields, card, strict=False)) for card in deck]
        self.hold_seconds = hold_seconds
        self.cues = sound_cues()
        self.server: WebServer | None = None

    def __call__(self, app: web.Application, server: WebServer) -> None:
        self.server = server
        r = app.router
        StaticFiles(PAGE).add(app)
        r.add_get("/api/state", self.state)
        r.add_get("/api/events", server.stream(event_of))
        r.add_get("/api/display.png", self.png)
        r.add_get("/api/cards", self.cards)
        r.add_get("/api/sounds", self.sounds)
        r.add_post("/api/press/{button}", self.press)
        r.add_post("/api/tap/{uid}", self.tap)
        if self.request is not None:
            PlayersRoutes(self.request).add(app)

    def _latest(self) -> Snapshot | None:
        return self.server.latest if self.server else None

    async def state(self, request: web.Request) -> web.Response:
        latest = self._latest()
        if latest is None:
            return _problem(503, "the box is still starting")
        return web.json_response(state_of(latest))

    async def png(self, request: web.Request) -> web.Response:
        latest = self._latest()
        if latest is None:
            return _problem(503, "the box is still starting")
        return web.Response(body=latest.png, content_type="image/png")

    async def cards(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"cards": self.deck, "hold_seconds": self.hold_seconds, "sound_names": SOUND_NAMES}
        )

    async def sounds(self, request: web.Request) -> web.Response:
        return web.json_response(self.cues)

    async def press(self, request: web.Request) -> web.Response:
        button = request.match_info["button"]
        if button not in BUTTONS:
            return _problem(400, f"unknown button {button!r} (use {', '.join(BUTTONS)})")
        long_arg = request.query.get("long", "0")
        if long_arg not in ("0", "1"):
            return _problem(400, f"long={long_arg!r}: use long=1 for a long press, or leave it out")
        long = long_arg == "1"
        if not self.controls.press(button, long):
            return _problem(429, "pressed faster than a finger could: this press was dropped")
        return web.json_response({"pressed": button, "long": long}, status=202)

    async def tap(self, request: web.Request) -> web.Response:
        text = request.match_info["uid"]
        hint = UID_HINTS.get(self.reader)
        say = f"not a card UID: {hint}" if hint else "not a card UID"
        if len(text) > 32:
            return web.json_response(
                {"error": "a UID is at most 32 characters", "say": say}, status=400
            )
        if set(text) <= UID_CHARS and not UID_TYPED.fullmatch(text.strip()):  # else said below
            return web.json_response(
                {
                    "error": f"card UID {text!r}: hex digits only, parted at most by one "
                    "':', '-', '.' or space",
                    "say": say,
                },
                status=400,
            )
        try:
            uid = self.controls.tap(text)
        except ValueError as err:
            plain = say if str(err).startswith("card UID") else str(err)
            return web.json_response(
                {"error": f"card UID {text!r}: {err}", "say": plain}, status=400
            )
        return web.json_response({"tapped": uid}, status=202)
