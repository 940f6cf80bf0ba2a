"""Notices shown over the screen for a moment, a page at a time, dismissed by any input."""

from __future__ import annotations

from companion.app.refresh import MENU_LIGHT
from companion.core import storage
from companion.ui import notice
from companion.ui.screen import RED, RGB, Lights

TOAST_SECONDS = 2.5


class Toasts:
    """Notices over the screen for a moment (a part of App)."""

    def _dismiss_toast(self) -> None:
        """Any input answers at once: an old notice must not cover the answer."""
        self.toast, self.toast_pages = None, ()
        self.loop.cancel("toast")

    def _toast(self, lines: tuple[str, ...], color: RGB = MENU_LIGHT, title: str = "") -> None:
        """A notice for a moment, a page at a time: all its words, none cut."""
        title = title or (self.session.rules.title if self.session else "Trap Companion")
        first, *rest = notice.pages(title, [line for line in lines if line])
        self.toast, self.toast_pages = (first, Lights(color)), tuple(rest)
        self.loop.call_later(TOAST_SECONDS, self._toast_over, "toast")

    def notice(self, lines: tuple[str, ...]) -> None:
        """A notice from outside the app (a face: the phones' port, their file): loop thread."""
        self._toast(lines)
        self.refresh()

    def storage_changed(self, condition: str) -> None:
        """The journal's storage refused a write, or takes them again (the journal has said
        so in the log): a notice now, the screen's title while it lasts (``current``). Called
        inside the journal's write: the screen is drawn, and records that were refused are
        written, once the event at hand is done (a deadline now)."""
        if condition == storage.OK:
            self._toast(("storage takes moves again", "all saved"))
        else:
            self._toast((storage.NOTICES[condition], "play goes on"), RED)
        self.loop.call_later(0.0, self._storage_said, "storage-notice")

    def _storage_said(self) -> None:
        if self.journal.condition == storage.OK and self.session is not None:
            self.keep_result(announce=False)
        self.refresh()

    def _toast_over(self) -> None:
        if self.toast is not None and self.toast_pages:
            (page, *rest), lights = self.toast_pages, self.toast[1]
            self.toast, self.toast_pages = (page, lights), tuple(rest)
            self.loop.call_later(TOAST_SECONDS, self._toast_over, "toast")
        else:
            self.toast = None
        self.refresh()
