"""The box's own menus (game choice, options, the game menu, undo, records, dice source) and
what their answers do."""

from __future__ import annotations

from dataclasses import replace

from companion.core.registry import Card
from companion.games import registry as games
from companion.games.base import Action, Ask, BadAction, Press, Reply
from companion.ui import menus, notice
from companion.ui import records as record_pages


class MenuControl:
    """The box's own menus and their answers (a part of App)."""

    def open_game_menu(self) -> None:
        names = games.available()
        titles = [games.get(n).title for n in names]
        phone_items, phone_keys = self.phone_items()  # phones may pair before any game
        titles, names = [*titles, *phone_items], [*names, *phone_keys]
        self.menu = menus.ListMenu("Choose a game", titles, names, "pick_game")

    def _game_hook(self, hook: str) -> None:
        """Submit what the game asks for when its play stops or goes on around the box's menu
        (a turn timer pauses while the menu is open); games without the hook ignore it."""
        session = self.session
        ask = getattr(session.rules, hook, None) if session else None
        action = ask(session.state) if ask else None
        if action is not None:
            self.submit(action, from_input=True, auto=True)

    def open_session_menu(self) -> None:
        self._game_hook("pause_action")
        items = ["Resume", "Undo last", "New game", "Other game"]
        keys = ["resume", "undo", "new_game", "switch_game"]
        if getattr(self.session.rules, "uses_dice", True):  # a game without dice: no choice
            items.append("Dice: table" if self.table_dice else "Dice: box")
            keys.append("dice")
        if hasattr(self.session.rules, "result"):
            items.append("Records")
            keys.append("records")
        if tuple(self.session.rules.catalog()):
            items.append("Enrol copies")
            keys.append("enrol_run")
        phone_items, phone_keys = self.phone_items()
        items += phone_items
        keys += phone_keys
        self.menu = menus.ListMenu(self.session.rules.title, items, keys, "session")

    def ask_undo(self) -> None:
        session = self.session
        last = session.last_by_person() if session else None
        if last is None:
            self.reject("nothing to undo")
            return
        what = notice.wrap(session.labels[last])
        # A long step takes all three lines (the title asks already); the renderer shrinks it.
        what = [*what[:2], " ".join(what[2:])] if len(what) > 2 else ["Take back:", *what]
        self.menu = menus.Confirm("Undo?", tuple(what), menus.Command("undo"))

    def _built(self, reply: Reply, form: menus.Menu | None) -> None:
        """What a finished form built: an action, or another menu to open. A menu that is a
        part of play stays as it was when that is refused."""
        if not (isinstance(form, menus.FormMenu) and form.ask.walk.in_play):
            self.answer(reply)
            return
        self.menu = None
        if isinstance(reply, Action):
            state = self.session.state
            if not self.submit(reply, from_input=True):
                if self.menu is None:
                    self.menu = self.play_form = form
                elif isinstance(self.menu, menus.DiceEntry):  # the table's dice: it waits
                    self.under_menu = (form, state)
            return
        if isinstance(reply, Ask) and len(reply.forms) == 1 and reply.forms[0].refused:
            self.menu = self.play_form = form
            self.reject(reply.forms[0].refused)
            return
        self.answer(reply)

    def _menu_press(self, button: str, long: bool) -> None:
        self._menu_command(self.menu.press(button, long))
        self._take_waiting_copies()

    def _menu_command(self, command: menus.Command) -> None:
        kind, data = command.kind, command.data
        if kind == "stay":
            return
        from_play = self.menu is not None and self.menu is self.play_form
        self._menu_step(kind, data)
        if from_play and self.menu is not self.play_form:
            self.play_form = None
            self._take_held_taps(answered=kind != "close")
        self.back_under_menu()

    def _menu_step(self, kind: str, data: dict) -> None:
        form = self.menu
        left_session_menu = getattr(self.menu, "on_pick", None) == "session"
        # An enrolment run is opened from the session menu: leaving it goes back to play.
        left_run = isinstance(self.menu, menus.EnrolRun) or (
            isinstance(self.menu, menus.Enrol) and not self.menu.uid
        )
        self.menu = None
        if (left_session_menu and (kind == "close" or data.get("key") in ("resume", "dice"))) or (
            left_run and kind == "close"
        ):
            self._game_hook("resume_action")
        if kind == "close":
            if self.session is None:
                self.open_game_menu()
        elif kind == "pick_game" and data["key"] in ("pair_phone", "forget_phones"):
            self.phone_command(data["key"])
        elif kind == "pick_game":
            rules = games.get(data["key"])
            self.menu = menus.OptionsMenu(data["key"], rules.title, tuple(rules.options))
        elif kind == "start":
            try:
                self.new_game(data["game"], data["options"])
            except BadAction as err:  # options that do not go together: the form says why
                self.menu = form
                self.reject(str(err))
        elif kind == "undo":
            self.undo()
        elif kind == "session":
            key = data["key"]
            if key == "undo":
                self.ask_undo()
            elif key == "new_game":
                rules = self.session.rules
                self.menu = menus.OptionsMenu(
                    self.session.name,
                    rules.title,
                    tuple(rules.options),
                    dict(self.session.raw_options),
                )
            elif key == "switch_game":
                self.open_game_menu()
            elif key == "records":
                session = self.session
                book = record_pages.pages(session.rules.title, self.records, session.name)
                self.menu = menus.PageMenu(book)
            elif key == "enrol_run":
                kinds = tuple(self.session.rules.catalog())
                self.menu = menus.Enrol("", self.session.name, kinds)
            elif key in ("pair_phone", "forget_phones"):
                self.phone_command(key)
            elif key == "dice":
                self.table_dice = not self.table_dice
                where = "the table's dice" if self.table_dice else "the box"
                self.note(f"dice now come from {where}")
                self._toast(("Dice now from", where))
        elif kind == "phones":
            self.phone_command(data["do"])
        elif kind == "form_done":
            self.submit(Action(data["name"], data["args"]), from_input=True)
        elif kind == "form_built":
            self._built(data["reply"], form)
        elif kind == "play_press":  # pages of play: ok or green go on as on the game screen
            session = self.session
            self.answer(session.rules.control(session.state, Press(data["button"], data["long"])))
        elif kind == "refused":
            if isinstance(form, menus.FormMenu) and form.ask.walk.in_play:
                self.menu = form  # refused as an action is: the menu stays as it was
            self.reject(data["reason"])
        elif kind == "dice_entered":
            self.submit(replace(data["action"], rolls=data["rolls"]), from_input=True)
        elif kind == "enrol":
            kinds = tuple(games.get(data["game"]).catalog())
            self.menu = menus.Enrol(data["uid"], data["game"], kinds)
        elif kind == "enrol_run":
            self.menu = data["run"]
            self.note(f"enrolling copies of {data['run'].kind.name}")
        elif kind == "enrol_copy":
            self.menu = data["run"]
            self._enrol_copy(data["run"], data["uid"])
        elif kind == "enrol_done":
            card = Card(data["uid"], data["game"], data["card"], data["name"], data["fields"])
            if not self._enrolled(card):
                return
            self.note(f"enrolled {card.uid} as {card.name}")
            self.play("card_ok")
            if not self._play_card(card):  # the tap that asked for the enrolment counts
                self._toast(("Enrolled:", card.name))
