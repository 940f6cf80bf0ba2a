"""The box's application: everything between the parts (buttons, reader, OLED, LED, buzzer) and
the games' pure rules, run on the loop's one consumer thread.

The box's flow is a value and one pure function, as a game's is: ``BoxState`` (what the box is
doing) and ``step(box, event, world) -> (box, effects)``; the App performs the effects and draws
the value. Where to find what:

- boxstate.py: ``BoxState``, the value: game in play, menu, question waiting, held cards, notice.
- events.py: what the step takes (a press, a tap, a deadline, a command, an effect's answer).
- effects.py: what the step asks for (journal entries, sounds, log lines, wakes, enrolments).
- step.py: ``step`` and its ``World`` (what it reads); the ``Draft`` one step works on.
- play.py: an action rolled, applied, journaled; questions of play; new game, undo, resume; a
  game set aside for another and taken up again.
- menu_flow.py: presses, and the box's own menus and what their answers do.
- cards.py: taps played or held for a question; enrolling cards and runs of copies.
- phones.py: the phones' entries of the box's menus, and the pairing code screen.
- view.py: what the box shows, drawn from the value alone; the game's public state.
- session.py: ``Session``, the game being played as a value, folded from journal steps.
- dice_source.py: ``DiceSource`` (entered dice first, else the random source) and ``Dice``.
- box.py: ``App``: config, parts, loop, journal, cards, records; the inputs, the stop, the frame.
- interpreter.py: the App's effects performed in order (journal, sounds, lights, deadlines, log).
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
