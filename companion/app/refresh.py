"""What the box shows: the notice, menu, game screen or idle screen on top, drawn on the OLED
and the LED after every change; the one-line status for systemd."""

from __future__ import annotations

from dataclasses import replace

from companion.core import storage
from companion.faces.snapshot import Snapshot
from companion.ui.screen import OFF, RGB, Lights, Screen

MENU_LIGHT: RGB = (0.25, 0.25, 0.25)  # a dim white: no game colour means "menu"
READER_DOWN = ("reader lost", "reader error")  # how the runner's status says it cannot read


class Refresh:
    """What the box shows, and drawing it (a part of App)."""

    def current(self) -> tuple[Screen, Lights]:
        """What is on top, titled with the storage's condition while it refuses moves."""
        screen, lights = self._on_top()
        condition = self.journal.condition
        if condition != storage.OK:
            screen = replace(screen, title=storage.TITLES[condition])
        return screen, lights

    def _on_top(self) -> tuple[Screen, Lights]:
        if self.toast is not None:
            return self.toast
        if self.menu is not None:
            drawn = self._game_drawn()
            return drawn or (self.menu.screen(), Lights(MENU_LIGHT, "solid"))
        if self.session is not None:
            return self.session.rules.view(self.session.state)
        return Screen("Trap Companion", ("Press back",)), Lights(OFF)

    def _game_drawn(self) -> tuple[Screen, Lights] | None:
        """A game's own menu drawn by the game (its optional ``menu_view``), else None."""
        session = self.session
        draw = getattr(session.rules, "menu_view", None) if session else None
        if draw is None or self.menu is not self.play_form:
            return None
        return draw(session.state, self.menu.showing())

    def public_state(self) -> dict | None:
        """The game's public state, with what its own menu shows where the game names that
        (its optional ``menu_public``, given the menu of play open or waiting, or None)."""
        session = self.session
        if session is None:
            return None
        out = session.rules.public(session.state)
        named = getattr(session.rules, "menu_public", None)
        if named is not None:
            menu = self.menu if self.menu is self.play_form else None
            if menu is None and self.under_menu is not None:
                menu = self.under_menu[0]
            out.update(named(menu.showing() if menu is not None else None))
        return out

    def refresh(self) -> None:
        screen, lights = self.current()
        if self.shown is None or self.shown[0] != screen:
            self.display.show(screen)
        self.led.show(lights)
        self.shown = (screen, lights)
        for hook in self.on_refresh:
            hook()
        if self.faces:  # no face, no snapshot: the box alone pays nothing more
            self.faces.publish(self.snapshot)

    def snapshot(self, seq: int) -> Snapshot:
        """What the box shows now, for the faces. The sounds, log lines and refusal since the
        last snapshot are handed over (and cleared): with faces, they are theirs."""
        screen, lights = self.shown if self.shown else self.current()
        session = self.session
        size, pixels = Snapshot.pack(self.display.image)
        sounds, logs, rejected = tuple(self.sounds), tuple(self.logs), self.rejected
        self.sounds.clear()
        self.logs.clear()
        self.rejected = None
        return Snapshot(
            seq=seq,
            t=self.clock.now(),
            game=session.name if session else None,
            title=session.rules.title if session else "Trap Companion",
            screen=tuple(screen.text_lines()),
            size=size,
            pixels=pixels,
            led=lights.shown(),
            pattern=lights.pattern,
            sounds=sounds,
            log=logs,
            state=self.public_state(),
            reader=self.reader_status,
            rejected=rejected,
            view=screen,
        )

    def status_line(self) -> str:
        game = self.session.rules.title if self.session else "menu"
        reader = self.reader_status
        if reader.startswith(READER_DOWN):
            reader = f"{reader} (retrying)"
        line = f"{game}; {self.display.status}; {reader}"
        if self.phones is not None:
            line += f"; {self.phones.status()}"
        if self.journal.condition != storage.OK:
            line += f"; {storage.NOTICES[self.journal.condition]}"
        return line
