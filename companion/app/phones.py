"""The phones at the table, as the box's own menus see them: "Pair a phone" (a code on the OLED)
and "Forget phones", offered only when a phone face is on (``app.phones`` is set by whoever
started it: the daemon with ``[phones] enabled``, the simulator with ``--phones``).

Nothing here imports the web parts: ``app.phones`` is any object with ``pairing`` (see
companion/web/pairing.py), ``address()`` (what to type on the phone) and ``status()`` (a short
line for STATUS, e.g. the port being taken).

Pairing needs the box: a code may only ever be read off the OLED, so a press from the phones'
remote (``Pressed.remote``) cannot show a code nor forget phones; it gets a notice instead.
While the box shows its pairing code or asks "Forget phones?", its own buttons alone answer:
a phone's press then changes nothing at all (``remote_refused``), so a paired phone cannot end
a code before it is read, hide it under a notice, nor dismiss the question.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from companion.app import box_menus
from companion.app.effects import EndPairingCode, ForgetPhones, NewPairingCode, Unwake
from companion.core.storage import WORDS
from companion.core.values import frozen
from companion.ui import menus
from companion.ui.screen import RED, Screen

if TYPE_CHECKING:
    from companion.app.draft import Draft

TITLE = "Pair a phone"


@frozen
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

    def press(self, button: str, long: bool) -> tuple[PairCode, menus.Command]:
        if button in ("ok", "green"):
            return self, menus.Command("phones", {"do": "new_code"})
        if button in ("back", "red"):  # the code dies with its screen (an effect, EndPairingCode)
            return self, menus.Command("phones", {"do": "end_code"})
        return self, menus.STAY


ONLY_ON_THE_BOX = ("pair_phone", "new_code", "forget_phones", "forget_yes")
FORGET_TITLE = "Forget phones?"


def box_only(menu: Any) -> bool:
    """Whether ``menu`` is one of the phones' own screens, answered by the box's buttons only."""
    if isinstance(menu, PairCode):
        return True
    return (
        isinstance(menu, menus.Confirm)
        and menu.on_yes.kind == "phones"
        and menu.on_yes.data.get("do") == "forget_yes"
    )


def remote_refused(d: Draft) -> bool:
    """A phone's press on the box's pairing or forgetting screen: nothing changes, not even a
    notice over the code (True: the press is taken no further)."""
    return d.remote and box_only(d.menu)


def phone_command(d: Draft, what: str) -> None:
    """An entry of the phones' menus, in the box's step (the pairing itself is the phones'
    part's: a new code, its end and forgetting leave as effects)."""
    phones = d.world.phones
    if phones is None:
        return
    if d.remote and what in ONLY_ON_THE_BOX:
        d.note(f"{what.replace('_', ' ')} refused: pressed on a phone, not on the box")
        d.toast_up(("Only on the box", "itself: pairing", "and forgetting"), title="Phones")
        if d.menu is None and d.session is None:  # the game menu stays, as on "back"
            box_menus.open_game_menu(d)
        return
    if what in ("pair_phone", "new_code"):
        d.out.append(NewPairingCode())  # the screen redraws when the code runs out
        d.menu = PairCode(phones)
        d.note("phone pairing code shown")
    elif what == "forget_phones":
        n = phones.pairing.count()
        d.menu = menus.Confirm(
            FORGET_TITLE,
            (f"{n} paired", "each must pair again"),
            menus.Command("phones", {"do": "forget_yes"}),
        )
    elif what == "forget_yes":
        d.out.append(ForgetPhones())  # answered with PhonesForgotten
    elif what == "end_code":  # the code screen left: as its back would close any menu
        d.out.append(EndPairingCode())
        if d.session is None:
            box_menus.open_game_menu(d)


def forgotten(d: Draft, n: int, failed: str = "") -> None:
    """Forgetting done, or (``failed``: the storage condition) refused whole: the phones stay
    paired, and the box says so rather than forget them until the next restart only."""
    if failed:
        d.log(logging.ERROR, f"phones not forgotten: the state dir is {failed}")
        d.play("error")
        d.toast_up(storage_lines(failed), RED, title="Phones not forgotten")
        return
    d.note(f"forgot {n} paired phones")
    d.toast_up((f"{n} phone{'' if n == 1 else 's'} forgotten",), title="Phones")


def storage_lines(condition: str) -> tuple[str, ...]:
    """ "the box cannot save pairings now: its storage is read-only", in OLED lines."""
    return ("Cannot save pairings", "now: its storage", f"is {WORDS[condition]}")


def phones_changed(d: Draft, what: str) -> None:
    """From the web server's thread, through the loop: a phone paired, or the code went
    void."""
    if what == "paired":
        if isinstance(d.menu, PairCode):
            d.menu = None
            d.out.append(Unwake("phones-code"))
            if d.session is None:
                box_menus.open_game_menu(d)
        d.note("a phone was paired")
        d.play("card_ok")
        d.toast_up(("Phone paired",), title="Phones")
    elif what == "void":
        d.note("pairing code void after too many wrong codes")
        d.play("error")
    elif what.startswith("unsaved:"):  # the code was used, the phone told why it is not paired
        condition = what.removeprefix("unsaved:")
        if isinstance(d.menu, PairCode):
            d.menu = None
            d.out.append(Unwake("phones-code"))
            if d.session is None:
                box_menus.open_game_menu(d)
        d.log(logging.ERROR, f"phone not paired: the state dir is {condition}")
        d.play("error")
        d.toast_up(storage_lines(condition), RED, title="Phone not paired")
    # "port": the status line and the notice come from the phones part itself
