"""The box's application: everything between the parts (buttons, reader, OLED, LED, buzzer) and
the games' pure rules, run on the loop's one consumer thread.

The box's flow is a value and one pure function, as a game's is: ``BoxState`` (what the box is
doing) and ``step(box, event, world) -> (box, effects)``; the App performs the effects and draws
the value. Where to find what:

- boxstate.py: ``BoxState``, the value: game in play, menu, question waiting, held cards, notice.
- events.py: what the step takes (a press, a tap, a deadline, a command, an effect's answer).
- effects.py: what the step asks for (journal entries, sounds, log lines, wakes, enrolments).
- step.py: ``step``: each kind of event handed to one handler (the handlers below, which
  import one way: menu_flow -> phones -> box_menus, cards -> play -> draft).
- draft.py: the ``World`` a step reads, and the ``Draft`` it works on.
- menu_flow.py: presses, and what the answers of the box's own menus do.
- phones.py: the phones' entries of the box's menus, and the pairing code screen.
- box_menus.py: the box's menus as they open: the game list, the game menu.
- cards.py: taps played or held for a question; enrolling cards and runs of copies.
- play.py: an action rolled, applied, journaled; questions of play and their answers, the held
  cards played; new game, undo, resume; a game set aside for another and taken up again.
- view.py: what the box shows, drawn from the value alone; the game's public state.
- session.py: ``Session``, the game being played as a value, folded from journal steps.
- dice_source.py: ``DiceSource`` (entered dice first, else the random source) and ``Dice``.
- box.py: ``App``: config, parts, loop, journal, cards, records; the inputs, the stop.
- interpreter.py: the App's effects performed in order (journal, sounds, lights, deadlines,
  log lines), then the frame drawn and published.
- start.py: the App's start, and a saved game folded back (resume).
- parts.py: ``Parts``, the hardware handed in by the daemon, the simulator, replay or a test.
"""

from companion.app.box import App
from companion.app.boxstate import BoxState
from companion.app.dice_source import DiceSource
from companion.app.parts import Parts
from companion.app.session import Session
from companion.app.step import TOAST_SECONDS, World, step
from companion.app.view import MENU_LIGHT, READER_DOWN

__all__ = [
    "MENU_LIGHT",
    "READER_DOWN",
    "TOAST_SECONDS",
    "App",
    "BoxState",
    "DiceSource",
    "Parts",
    "Session",
    "World",
    "step",
]
