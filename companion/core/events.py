"""What producers put on the one queue. Producers (button callbacks, reader threads, signal
handlers) only build one of these and enqueue it; the loop's consumer does the rest."""

from __future__ import annotations

from collections.abc import Callable

from companion.core.values import value


@value
class ButtonEdge:
    """A raw edge from gpiozero, stamped with our clock (debounce happens in the consumer)."""

    button: str
    pressed: bool
    t: float


@value
class CardSeen:
    """One valid read of a card by the reader driver (the presence machine decides taps)."""

    uid: str
    t: float


@value
class ReaderStatus:
    text: str


@value
class Call:
    """Run ``fn`` on the consumer thread (e.g. the simulator typing a UID)."""

    fn: Callable[[], None]


@value
class Stop:
    reason: str = "stop"


Event = ButtonEdge | CardSeen | ReaderStatus | Call | Stop
