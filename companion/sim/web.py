"""The simulator in a browser (`trap-companion sim --web`): the simulated box on the real clock
with a web face on 127.0.0.1, beside the terminal picture or alone (`--display none`).

aiohttp is imported here only when a web face is asked for.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import threading
from typing import Any

from companion.core.clock import RealClock
from companion.core.config import Config
from companion.core.events import Stop
from companion.sim.box import SimulatedBox
from companion.sim.controls import SimControls

log = logging.getLogger(__name__)

HOST = "127.0.0.1"  # the simulator is served to this machine only
DEFAULT_PORT = 8765


def serve(box: SimulatedBox, controls: SimControls, port: int, host: str = HOST) -> Any:
    """Start the web face of ``box`` (before ``box.app.start()``, so it sees the first frame);
    the running WebServer. PortTaken if the port is used."""
    from companion.web.guard import Guard
    from companion.web.server import WebServer
    from companion.web.sim_routes import SimRoutes

    deck = [(c.uid, c.name, c.game) for c in box.app.registry.demo.values()]
    routes = SimRoutes(controls, deck, box.config.buttons.hold_seconds)
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
        """Until SIGINT, SIGTERM or SIGHUP. The loop runs on its own thread; this one sleeps in
        select on the signal wake-up pipe, which any thread's signal reaches at once."""
        app, loop = self.box.app, self.box.loop
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        done_r, done_w = os.pipe()
        caught: list[int] = []
        failure: list[BaseException] = []

        def consume() -> None:
            try:
                loop.run()
            except BaseException as err:  # reported below, on the main thread
                failure.append(err)
            finally:
                os.write(done_w, b"!")

        saved = {}
        old_fd = signal.set_wakeup_fd(wake_w)
        consumer = threading.Thread(target=consume, name="loop", daemon=True)
        try:
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                saved[signum] = signal.signal(signum, lambda signum, frame: caught.append(signum))
            app.start()
            consumer.start()
            if ready is not None:
                ready(self.url)
            while not caught:
                readable, _, _ = select.select([wake_r, done_r], [], [])
                if done_r in readable:
                    break
                os.read(wake_r, 64)
        finally:
            if consumer.is_alive():
                loop.post(Stop(signal.Signals(caught[0]).name if caught else "stop"))
                consumer.join(timeout=2)
            signal.set_wakeup_fd(old_fd)
            for signum, handler in saved.items():
                signal.signal(signum, handler)
            self.server.stop()
            self.controls.close()
            self.box.close()
            for fd in (wake_r, wake_w, done_r, done_w):
                os.close(fd)
        if failure:
            raise failure[0]
        return 0
