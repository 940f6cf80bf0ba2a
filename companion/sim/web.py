"""The simulator in a browser (`trap-companion sim --web`): the simulated box on the real clock
with a web face on 127.0.0.1, beside the terminal picture or alone (`--display none`).

aiohttp is imported here only when a web face is asked for.
"""

from __future__ import annotations

import logging
import signal
from typing import Any

from companion.core.clock import RealClock
from companion.core.config import Config
from companion.core.events import Stop
from companion.core.signals import SignalRelay
from companion.sim.box import SimulatedBox
from companion.sim.controls import SimControls

log = logging.getLogger(__name__)

HOST = "127.0.0.1"  # the simulator is served to this machine only
DEFAULT_PORT = 8765


def _kind(game: str, card: str) -> str:
    """What sort of card it is in its game (the catalog's group: "item", "relic"), for the
    page's deck grouped by kind."""
    from companion.games import registry as games

    if game not in games.available():
        return ""
    return next((k.group for k in games.get(game).catalog() if k.id == card), "")


def serve(box: SimulatedBox, controls: SimControls, port: int, host: str = HOST) -> Any:
    """Start the web face of ``box`` (before ``box.app.start()``, so it sees the first frame);
    the running WebServer. PortTaken if the port is used."""
    from companion.web.guard import Guard
    from companion.web.players_routes import LoopAsk
    from companion.web.server import WebServer
    from companion.web.sim_routes import SimRoutes

    deck = [(c.uid, c.name, c.game, _kind(c.game, c.card)) for c in box.app.registry.demo.values()]
    routes = SimRoutes(controls, deck, box.config.buttons.hold_seconds, box.kind, LoopAsk(box.app))
    server = WebServer(host, port, Guard(), routes=[routes])
    server.start()
    box.app.faces.add(server)
    return server


class WebOnlySim:
    """The box with only the web face: no terminal needed; SIGINT or SIGTERM stops it."""

    def __init__(self, config: Config, port: int = DEFAULT_PORT) -> None:
        self.box = SimulatedBox(config, clock=RealClock(), demo_cards=True)
        self.controls = SimControls(self.box)
        try:
            self.server = serve(self.box, self.controls, port)
        except BaseException:
            self.box.close()
            raise

    @property
    def url(self) -> str:
        return str(self.server.url)

    def run(self, ready: Any = None) -> int:
        """Until SIGINT, SIGTERM or SIGHUP, whichever thread the kernel gives it to."""
        app, loop = self.box.app, self.box.loop
        relay = SignalRelay(
            (signal.SIGINT, signal.SIGTERM, signal.SIGHUP), lambda name: loop.post(Stop(name))
        )
        try:
            with relay:
                app.start()
                if ready is not None:
                    ready(self.url)
                loop.run()
        finally:
            self.server.stop()
            self.controls.close()
            self.box.close()
        return 0
