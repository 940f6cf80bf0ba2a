"""The one-consumer loop: deadlines in order on a virtual clock, events from other threads."""

import threading

import pytest

from companion.core.clock import RealClock, VirtualClock
from companion.core.events import ButtonEdge, Call, ReaderStatus, Stop
from companion.core.loop import Loop


def test_deadlines_fire_in_time_order_and_move_the_clock():
    clock = VirtualClock()
    loop = Loop(clock)
    fired = []
    loop.call_at(3.0, lambda: fired.append(("c", clock.now())))
    loop.call_at(1.0, lambda: fired.append(("a", clock.now())))
    loop.call_at(2.0, lambda: fired.append(("b", clock.now())))
    loop.advance_to(2.5)
    assert fired == [("a", 1.0), ("b", 2.0)]
    assert clock.now() == 2.5
    loop.advance_to(10)
    assert fired[-1] == ("c", 3.0)


def test_a_keyed_deadline_replaces_the_earlier_one_and_cancel_drops_it():
    clock = VirtualClock()
    loop = Loop(clock)
    fired = []
    loop.call_at(1.0, lambda: fired.append(1), key="t")
    loop.call_at(2.0, lambda: fired.append(2), key="t")
    loop.call_at(1.5, lambda: fired.append(3), key="u")
    loop.cancel("u")
    loop.advance_to(5)
    assert fired == [2]
    assert loop.next_deadline() is None


def test_a_deadline_set_by_a_deadline_fires_within_the_same_advance():
    clock = VirtualClock()
    loop = Loop(clock)
    ticks = []

    def tick():
        ticks.append(clock.now())
        if len(ticks) < 5:
            loop.call_later(1.0, tick, key="tick")

    loop.call_at(1.0, tick, key="tick")
    loop.advance_to(60)
    assert ticks == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_failing_handler_does_not_stop_the_loop(caplog):
    loop = Loop(VirtualClock())
    seen = []

    def handler(event):
        if isinstance(event, ReaderStatus) and event.text == "boom":
            raise RuntimeError("bug")
        seen.append(event)

    loop.handler = handler
    loop.post(ReaderStatus("boom"))
    loop.post(ReaderStatus("fine"))
    loop.drain()
    assert seen == [ReaderStatus("fine")]
    assert "handler failed" in caplog.text


def test_run_wakes_for_events_posted_from_another_thread_and_stops():
    loop = Loop(RealClock())
    got = []
    loop.handler = got.append

    def producer():
        loop.post(ReaderStatus("hello"))
        loop.post(Call(lambda: got.append("call")))
        loop.post(Stop("done"))

    threading.Thread(target=producer).start()
    stop = loop.run()
    assert stop.reason == "done"
    assert got == [ReaderStatus("hello"), "call"]


def test_run_fires_a_real_deadline_without_any_event():
    loop = Loop(RealClock())
    loop.call_later(0.02, lambda: loop.post(Stop("timer")))
    assert loop.run().reason == "timer"


def test_virtual_clock_never_goes_back():
    clock = VirtualClock(5)
    with pytest.raises(ValueError):
        clock.set(4)


def test_an_event_never_overtakes_an_earlier_deadline():
    clock = VirtualClock()
    loop = Loop(clock)
    order = []
    loop.handler = lambda e: order.append(("event", e.t))
    loop.call_at(1.0, lambda: order.append(("deadline", 1.0)))
    clock.set(0.5)
    # The consumer will find an event stamped after the deadline already queued (it woke late).
    loop.post(ButtonEdge("ok", True, 1.5))
    loop.post(Stop())
    loop.run()
    assert order == [("deadline", 1.0), ("event", 1.5)]


def test_cancel_prefix_drops_a_group_of_timers():
    loop = Loop(VirtualClock())
    fired = []
    loop.call_at(1, lambda: fired.append("a"), key="game:tick")
    loop.call_at(2, lambda: fired.append("b"), key="game:timeout")
    loop.call_at(3, lambda: fired.append("c"), key="toast")
    loop.cancel_prefix("game:")
    loop.advance_to(10)
    assert fired == ["c"]


def test_an_edge_stamped_before_a_due_deadline_is_handled_before_it():
    """The consumer was busy past a deadline while edges piled up: they are handled in the
    order they happened, the deadline between them."""
    clock = VirtualClock()
    loop = Loop(clock)
    order = []
    loop.handler = lambda e: order.append(getattr(e, "t", e))
    loop.call_at(0.005, lambda: order.append("deadline"))
    clock.set(0.02)  # busy until now
    loop.post(ButtonEdge("green", False, 0.003))
    loop.post(ButtonEdge("green", True, 0.008))
    loop.post(ReaderStatus("late"))  # no stamp: after everything posted before it
    loop.drain()
    assert order == [0.003, "deadline", 0.008, ReaderStatus("late")]
