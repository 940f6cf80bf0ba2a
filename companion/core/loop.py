"""One queue, one consumer, and deadlines on an injectable clock.

Producers on any thread call ``post``. Everything else (handlers, deadlines, rules, the screen)
runs on the consumer. The consumer sleeps in ``queue.get`` until the next event or the next
deadline: no polling, no busy loop. With a virtual clock, ``advance_to`` fires deadlines in
order instead, so tests and replay take no real time.

Events and deadlines are handled strictly in the order they happened. While the consumer is
busy (a frame, an fsync) edges pile up in the queue and deadlines fall due; it then takes
everything queued and handles an event stamped before a due deadline first (a button's edge
carries the time it happened, ``t``; an event without one counts from when it is taken), so a
debounce window never closes on an edge that came inside it. A remote's inputs (the phones',
``post_remote``) wait in a bounded queue of their own and are taken one at a time only when
nothing of the box's own is queued or due.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
from collections import deque
from collections.abc import Callable

from companion.core.clock import Clock, VirtualClock
from companion.core.events import Call, Event, Stop

log = logging.getLogger(__name__)

Handler = Callable[[Event], None]

REMOTE_QUEUE = 32  # a remote's inputs waiting at most (the phones'); more are refused
_WAKE = Call(lambda: None)  # on the box's queue: a remote's input is waiting


class Loop:
    def __init__(self, clock: Clock, handler: Handler | None = None) -> None:
        self.clock = clock
        self.handler: Handler = handler or (lambda event: None)
        self._queue: queue.SimpleQueue[Event] = queue.SimpleQueue()
        # Taken from the queue, not yet handled: (stamp, arrival, event), earliest first.
        self._arrived: list[tuple[float, int, Event]] = []
        self._arrival = itertools.count()
        self._latest = float("-inf")  # the latest stamp taken so far
        self._heap: list[tuple[float, int, str]] = []
        self._timers: dict[str, tuple[float, int, Callable[[], None]]] = {}
        self._seq = itertools.count()
        self.stopped: Stop | None = None
        # A remote's inputs (the phones'), bounded, taken only when the box's own queue is
        # empty: the box's buttons, reader and deadlines always come first.
        self._remote: deque[Event] = deque()
        self._remote_lock = threading.Lock()
        self.remote_limit = REMOTE_QUEUE

    # --- any thread ----------------------------------------------------------------------

    def post(self, event: Event) -> None:
        self._queue.put(event)

    def post_remote(self, event: Event) -> bool:
        """A remote's input: False (refused, nothing queued) when ``remote_limit`` wait already.
        Handled after everything on the box's own queue."""
        with self._remote_lock:
            if len(self._remote) >= self.remote_limit:
                return False
            wake = not self._remote
            self._remote.append(event)
        if wake:  # the consumer may be asleep on the box's queue
            self._queue.put(_WAKE)
        return True

    def remote_waiting(self) -> int:
        return len(self._remote)

    # --- consumer thread -----------------------------------------------------------------

    def call_at(self, t: float, fn: Callable[[], None], key: str | None = None) -> str:
        """Run ``fn`` at clock time ``t``; a timer with the same key is replaced."""
        seq = next(self._seq)
        key = key if key is not None else f"#{seq}"
        self._timers[key] = (t, seq, fn)
        heapq.heappush(self._heap, (t, seq, key))
        return key

    def call_later(self, delay: float, fn: Callable[[], None], key: str | None = None) -> str:
        return self.call_at(self.clock.now() + delay, fn, key)

    def cancel(self, key: str) -> None:
        self._timers.pop(key, None)

    def cancel_prefix(self, prefix: str) -> None:
        """Drop every timer whose key starts with ``prefix`` (e.g. all of a game's)."""
        for key in [k for k in self._timers if k.startswith(prefix)]:
            del self._timers[key]

    def pending(self, key: str) -> float | None:
        entry = self._timers.get(key)
        return entry[0] if entry else None

    def next_deadline(self) -> float | None:
        while self._heap:
            t, seq, key = self._heap[0]
            live = self._timers.get(key)
            if live is not None and live[1] == seq:
                return t
            heapq.heappop(self._heap)  # cancelled or replaced
        return None

    def _take(self) -> None:
        """Everything producers have queued, into the stamp-ordered heap."""
        while True:
            try:
                event = self._queue.get_nowait()
            except queue.Empty:
                return
            self._arrive(event)

    def _arrive(self, event: Event) -> None:
        if event is _WAKE:  # only says a remote's input waits: taken when the box's are done
            return
        stamp = getattr(event, "t", None)
        if not isinstance(stamp, int | float):
            # Unstamped: it happened now, and after whatever was posted before it.
            stamp = max(self.clock.now(), self._latest)
        self._latest = max(self._latest, stamp)
        heapq.heappush(self._arrived, (stamp, next(self._arrival), event))

    def _step(self) -> bool:
        """Handle the one thing that happened first: the earliest arrived event, or a deadline
        due before it (a tie goes to the deadline; an event stamped after a deadline shows that
        its time has come). False when nothing is left to do now."""
        self._take()
        deadline = self.next_deadline()
        first = self._arrived[0][0] if self._arrived else None
        if deadline is not None and deadline <= (self.clock.now() if first is None else first):
            _, _, key = heapq.heappop(self._heap)
            _, _, fn = self._timers.pop(key)
            self._guard(fn)
            return True
        if first is not None:
            self._dispatch(heapq.heappop(self._arrived)[2])
            return True
        with self._remote_lock:  # nothing of the box's own is waiting or due: a remote's turn
            remote = self._remote.popleft() if self._remote else None
        if remote is None:
            return False
        self._dispatch(remote)
        return True

    def _dispatch(self, event: Event) -> None:
        if isinstance(event, Stop):
            self.stopped = event
        elif isinstance(event, Call):
            self._guard(event.fn)
        else:
            self._guard(lambda: self.handler(event))

    def _guard(self, fn: Callable[[], None]) -> None:
        """A bug in one handler must not take the box down: log it and carry on."""
        try:
            fn()
        except Exception:
            log.exception("handler failed; the loop carries on")

    def drain(self) -> None:
        """Handle every queued event and every due deadline, in order, without waiting."""
        while self._step():
            pass

    def run(self) -> Stop:
        """Consume until a Stop event arrives (real clock)."""
        while self.stopped is None:
            if self._step():
                continue
            deadline = self.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock.now())
            try:
                event = self._queue.get(timeout=timeout)
            except queue.Empty:
                continue
            self._arrive(event)
        return self.stopped

    def advance_to(self, t: float) -> None:
        """Virtual clock: move to ``t``, firing deadlines in order and handling what they post."""
        clock = self.clock
        if not isinstance(clock, VirtualClock):
            raise TypeError("advance_to needs a VirtualClock")
        self.drain()
        while (deadline := self.next_deadline()) is not None and deadline <= t:
            clock.set(max(deadline, clock.now()))
            self.drain()
        clock.set(max(t, clock.now()))  # a handler may have spent virtual time (tests' work)
        self.drain()
