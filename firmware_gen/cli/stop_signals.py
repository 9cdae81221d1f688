"""SIGTERM, SIGHUP and SIGINT unwind a command like Ctrl-C, so that every `finally` runs (QEMU's process group is
killed, temporary and half-built directories removed), and the command exits with 128 + the signal. The CLI's
commands and the bench scripts (`run_script`) stop the same way."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Signalled(KeyboardInterrupt):
    """A stop signal arrived."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    for stop in STOP_SIGNALS:  # a second signal must not interrupt the clean-up of the first
        signal.signal(stop, signal.SIG_IGN)
    raise Signalled(signum)


@contextlib.contextmanager
def unwind_on_stop_signals() -> Iterator[None]:
    """Inside, in the main thread, a stop signal raises Signalled (a KeyboardInterrupt); the handlers before are put
    back on the way out. Other threads cannot take signals: there it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {stop: signal.signal(stop, _stop) for stop in STOP_SIGNALS}
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)


def interrupted_status(error: KeyboardInterrupt, name: str) -> int:
    """One line on stderr naming the signal (Ctrl-C when none), and the exit status 128 + it."""
    signum = getattr(error, "signum", signal.SIGINT)
    print(f"{name}: interrupted ({signal.Signals(signum).name})", file=sys.stderr)
    return 128 + signum


def run_script(main: Callable[[], int], name: str) -> int:
    """A script's main (bench/) unwound on a stop signal: what it started (QEMU, TFLM's server) is stopped."""
    try:
        with unwind_on_stop_signals():
            return main()
    except KeyboardInterrupt as error:
        return interrupted_status(error, name)
