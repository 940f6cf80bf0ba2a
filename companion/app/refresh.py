"""What the box shows: the notice, menu, game screen or idle screen on top, drawn on the OLED
and the LED after every change; the one-line status for systemd."""

from __future__ import annotations

from companion.ui.screen import OFF, RGB, Lights, Screen

MENU_LIGHT: RGB = (0.25, 0.25, 0.25)  # a dim white: no game colour means "menu"
READER_DOWN = ("reader lost", "reader error")  # how the runner's status says it cannot read


class Refresh:
    """What the box shows, and drawing it (a part of App)."""

    def current(self) -> tuple[Screen, Lights]:
        if self.toast is not None:
            return self.toast
        if self.menu is not None:
            return self.menu.screen(), Lights(MENU_LIGHT, "solid")
        if self.session is not None:
            return self.session.rules.view(self.session.state)
        return Screen("Trap Companion", ("Press back",)), Lights(OFF)

    def refresh(self) -> None:
        screen, lights = self.current()
        if self.shown is None or self.shown[0] != screen:
            self.display.show(screen)
        self.led.show(lights)
        self.shown = (screen, lights)
        for hook in self.on_refresh:
            hook()

    def status_line(self) -> str:
        game = self.session.rules.title if self.session else "menu"
        reader = self.reader_status
        if reader.startswith(READER_DOWN):
            reader = f"{reader} (retrying)"
        line = f"{game}; {self.display.status}; {reader}"
        if self.phones is not None:
            line += f"; {self.phones.status()}"
        return line
