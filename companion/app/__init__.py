"""The box's application: everything between the parts (buttons, reader, OLED, LED, buzzer) and
the games' pure rules, run on the loop's one consumer thread.

Where to find what:

- box.py: ``App``, the wiring: config, parts, loop, journal, cards, records; start, resume, stop.
- parts.py: ``Parts``, the hardware handed in by the daemon, the simulator, replay or a test.
- session.py: ``Session``, the game being played and how it is rebuilt from journal steps.
- dice_source.py: ``DiceSource``, dice entered from the table first, else the random source.
- inputs.py: button edges, card reads and reader status arriving from the loop.
- actions.py: an action rolled, applied, journaled, then its effects; new game, undo, records.
- menu_control.py: the box's own menus and what their answers do.
- enrolment.py: enrolling an unknown card, and runs of copies.
- toasts.py: notices over the screen for a moment.
- refresh.py: what the box shows now, drawn after every change; the status line.
"""

from companion.app.box import App
from companion.app.dice_source import DiceSource
from companion.app.parts import Parts
from companion.app.refresh import MENU_LIGHT, READER_DOWN
from companion.app.session import Session
from companion.app.toasts import TOAST_SECONDS

__all__ = ["MENU_LIGHT", "READER_DOWN", "TOAST_SECONDS", "App", "DiceSource", "Parts", "Session"]
