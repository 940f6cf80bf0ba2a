"""The signal relay: a signal the kernel gives to any thread reaches the callback at once, even
while the main thread sleeps in a queue with no deadline."""

import queue
import signal
import threading

from companion.core.signals import SignalRelay


def test_a_signal_on_a_worker_thread_reaches_the_callback_while_main_sleeps():
    got: queue.SimpleQueue[str] = queue.SimpleQueue()
    worker_ready = threading.Event()
    release = threading.Event()

    def worker() -> None:
        worker_ready.set()
        release.wait(10)

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        with SignalRelay((signal.SIGUSR1,), got.put):
            worker_ready.wait(10)
            signal.pthread_kill(thread.ident, signal.SIGUSR1)
            assert got.get(timeout=10) == "SIGUSR1"
    finally:
        release.set()
        thread.join()


def test_leaving_the_relay_puts_back_the_handlers_and_the_wakeup_fd():
    before = signal.getsignal(signal.SIGUSR2)
    with SignalRelay((signal.SIGUSR2,), lambda name: None):
        assert signal.getsignal(signal.SIGUSR2) is not before
    assert signal.getsignal(signal.SIGUSR2) is before
    assert signal.set_wakeup_fd(-1) == -1  # nothing left behind
