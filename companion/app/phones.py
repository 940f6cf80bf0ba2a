"""The phones at the table, as the box's own menus see them: "Pair a phone" (a code on the OLED)
and "Forget phones", offered only when a phone face is on (``app.phones`` is set by whoever
started it: the daemon with ``[phones] enabled``, the simulator with ``--phones``).

Nothing here imports the web parts: ``app.phones`` is any object with ``pairing`` (see
companion/web/pairing.py), ``address()`` (what to type on the phone) and ``status()`` (a short
line for STATUS, e.g. the port being taken).

Pairing needs the box: a code may only ever be read off the OLED, so a press from the phones'
remote (``remote_press``) cannot show a code nor forget phones; it gets a notice instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from companion.core.events import Call
from companion.ui import menus
from companion.ui.screen import Screen

log = logging.getLogger("companion.app")

TITLE = "Pair a phone"


@dataclass
class PairCode:
    """The code on the OLED until it is used, runs out or is void; ok shows a new one."""

    phones: Any

    def screen(self) -> Screen:
        pairing = self.phones.pairing
        status, left = pairing.code_status()
        wrong = pairing.wrong_guesses()  # someone guessing: the owner sees it here
        guesses = f"{wrong} wrong guess{'' if wrong == 1 else 'es'}"
        if status == "showing" and pairing.code is not None:
            digits = pairing.code.digits
            minutes = max(1, int(left + 59) // 60)
            where = self.phones.address()
            return Screen(  # the title says it when someone is guessing: the lines are full
                f"{guesses}: {minutes} min" if wrong else f"{TITLE}: {minutes} min",
                (where,),
                big=f"{digits[:3]} {digits[3:]}",
                footer=menus.footer(back="out"),
            )
        lines = {
            "void": ("Code void:", guesses),
            "expired": ("The code ran out",),
        }.get(status, ("No code shown",))
        return Screen(TITLE, (*lines, "ok: a new one"), footer=menus.footer(ok="next", back="out"))

    def press(self, button: str, long: bool) -> menus.Command:
        if button in ("ok", "green"):
            return menus.Command("phones", {"do": "new_code"})
        if button in ("back", "red"):
            self.phones.pairing.end_code()
            return menus.CLOSE
        return menus.STAY


ONLY_ON_THE_BOX = ("pair_phone", "new_code", "forget_phones", "forget_yes")


class Phones:
    """The phone entries of the game menu and their answers (a part of App)."""

    phones: Any = None
    remote = False  # the press being handled came from a phone's remote, not the box

    def remote_press(self, button: str, long: bool) -> None:
        """A press from the phones' remote: as the box's own, but pairing stays on the box."""
        self.remote = True
        try:
            self.on_press(button, long)
        finally:
            self.remote = False

    def phone_items(self) -> tuple[list[str], list[str]]:
        if self.phones is None or getattr(self.phones, "missing", ""):
            return [], []
        return ["Pair a phone", "Forget phones"], ["pair_phone", "forget_phones"]

    def phone_command(self, what: str) -> None:
        phones = self.phones
        if phones is None:
            return
        if self.remote and what in ONLY_ON_THE_BOX:
            self.note(f"{what.replace('_', ' ')} refused: pressed on a phone, not on the box")
            self._toast(("Only on the box", "itself: pairing", "and forgetting"), title="Phones")
            if self.menu is None and self.session is None:  # the game menu stays, as on "back"
                self.open_game_menu()
            return
        if what in ("pair_phone", "new_code"):
            phones.pairing.new_code()
            self.menu = PairCode(phones)
            deadline = phones.pairing.code_deadline()
            if deadline is not None:  # the screen says so the moment the code runs out
                self.loop.call_at(deadline, self.refresh, "phones-code")
            self.note("phone pairing code shown")
        elif what == "forget_phones":
            n = phones.pairing.count()
            self.menu = menus.Confirm(
                "Forget phones?",
                (f"{n} paired", "each must pair again"),
                menus.Command("phones", {"do": "forget_yes"}),
            )
        elif what == "forget_yes":
            n = phones.pairing.forget_all()
            self.note(f"forgot {n} paired phones")
            self._toast((f"{n} phone{'' if n == 1 else 's'} forgotten",), title="Phones")

    def phones_changed(self, what: str) -> None:
        """From the web server's thread: a phone paired, or the code went void."""
        self.loop.post(Call(lambda: self._phones_changed(what)))

    def _phones_changed(self, what: str) -> None:
        if what == "paired":
            if isinstance(self.menu, PairCode):
                self.menu = None
                self.loop.cancel("phones-code")
                if self.session is None:
                    self.open_game_menu()
            self.note("a phone was paired")
            self.play("card_ok")
            self._toast(("Phone paired",), title="Phones")
        elif what == "void":
            self.note("pairing code void after too many wrong codes")
            self.play("error")
        elif what == "port":
            pass  # the status line and the notice come from the phones part itself
        self.refresh()
