"""Run a firmware image under qemu-system-arm, its UART on a local TCP socket.

QEMU runs with -icount shift=0 (one instruction = 1 ns of virtual time, so SysTick counts are repeatable),
semihosting on (the firmware ends the run with an exit code), in its own process group, under `timeout -s KILL`
(so it dies even if this process is killed) and is always killed in a `finally`: no orphan QEMU.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import serial

from firmware_gen.errors import ToolchainError
from firmware_gen.link.framing import LinkError, open_link
from firmware_gen.target.boards import ICOUNT_SHIFT, Board

QEMU = "qemu-system-arm"
QEMU_INSTALL_HINT = "apt-get install --no-install-recommends qemu-system-arm"
# QEMU aborts (SIGABRT; 134 through `timeout`) when the CPU locks up: a fault while handling a fault.
ABORT_STATUSES = (134, -signal.SIGABRT)
# Harmless lines of QEMU's log: lm3s6965evb's timer, the serial backend waiting for and losing its client.
_LOG_NOISE = ("Timer with period zero", "QEMU waiting for connection")
Relay = Callable[[int], str]  # QEMU's serial port -> the URL the host opens to reach it (e.g. through a proxy)


# In a Zephyr build's QEMU line (FirmwareBuild.qemu_machine_args): the serial that is the console, uart0.
ZEPHYR_CONSOLE_SERIAL = "@console"


def qemu_command(board: Board, elf: Path, port: int, extra_flags: Sequence[str] = (),
                 machine_args: Sequence[str] = ()) -> list[str]:
    """extra_flags: more QEMU options (the execution trace's). machine_args: a Zephyr build's QEMU line (its -icount
    already shift 0, its console serial marked ZEPHYR_CONSOLE_SERIAL), which replaces the board file's machine and
    flags."""
    serial_url = f"tcp:127.0.0.1:{port},server=on,wait=on"
    if machine_args:
        machine = [serial_url if arg == ZEPHYR_CONSOLE_SERIAL else arg for arg in machine_args]
        return [QEMU, *machine, *extra_flags, "-kernel", str(elf), "-semihosting-config", "enable=on,target=native",
                "-display", "none", "-monitor", "none"]
    return [QEMU, "-M", board.qemu_machine, *board.qemu_flags, *extra_flags, "-kernel", str(elf),
            "-icount", f"shift={ICOUNT_SHIFT}", "-semihosting-config", "enable=on,target=native",
            "-display", "none", "-monitor", "none", "-serial", f"tcp:127.0.0.1:{port},server=on,wait=on"]


def free_tcp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class QemuSession:
    process: subprocess.Popen
    log: Path
    port: int
    link: serial.SerialBase
    time_limit: float = 0.0  # seconds QEMU may live (`timeout -s KILL`); 0: none

    def wait(self, timeout: float) -> int | None:
        """QEMU's exit status, or None if it is still running after timeout seconds."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def log_lines(self) -> list[str]:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [line for line in text.splitlines() if not any(noise in line for noise in _LOG_NOISE)]

    def log_tail(self, lines: int = 5) -> str:
        return " | ".join(self.log_lines()[-lines:])

    def describe_exit(self, status: int | None) -> str:
        if status is None:
            return "QEMU was still running (stopped)"
        fatal = [line for line in self.log_lines() if "fatal" in line or "Lockup" in line]
        if status in ABORT_STATUSES and fatal:
            # The register dump that follows is of little use without the image: keep QEMU's verdict.
            return (f"QEMU aborted: {fatal[0].strip()} (the CPU locked up: a fault while handling a fault, "
                    "e.g. the stack overflowed)")
        # `timeout -s KILL` kills its whole group, itself included: -9 is QEMU's time limit, as is 137.
        limit = f" (killed at its time limit of {self.time_limit:g} s)" if self.time_limit else " (killed)"
        what = {-signal.SIGKILL: limit, 137: limit}.get(status, "")
        tail = self.log_tail()
        return f"QEMU exited with status {status}{what}{': ' + tail if tail else ''}"


def kill_process_group(process: subprocess.Popen) -> None:
    """Kill QEMU's whole process group (QEMU is the child of `timeout`) and wait until none of it is left."""
    if process.poll() is not None:
        return  # `timeout` has exited, so has QEMU, and the group id may already belong to someone else
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.02)


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


@contextlib.contextmanager
def _stop_signals_deferred() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT held back while QEMU is started: one arriving between the fork and the assignment
    of the Popen would leave a QEMU nobody kills. Their handlers are swapped for one that only records, and the first
    recorded is raised again on exit, to the handler in place before. A signal mask alone does not hold them back:
    the kernel delivers a process's signal to any thread not blocking it (numpy's BLAS threads), and Python then runs
    the handler in the main thread at its next instruction, inside Popen."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers are the main thread's to set, and run there
        return
    arrived: list[int] = []
    previous = {stop: signal.getsignal(stop) for stop in _STOP_SIGNALS}
    for stop in _STOP_SIGNALS:
        signal.signal(stop, lambda signum, _frame: arrived.append(signum))
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler if handler is not None else signal.SIG_DFL)
        if arrived:
            signal.raise_signal(arrived[0])


def _connect(process: subprocess.Popen, url: str, port: int, deadline: float) -> serial.SerialBase | None:
    """The serial link to QEMU's UART at url, once QEMU listens; None if QEMU exited first."""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return None
        try:
            return open_link(url)
        except LinkError:
            time.sleep(0.05)
    raise ToolchainError(f"QEMU did not open its serial port 127.0.0.1:{port} within its start-up time")


@contextlib.contextmanager
def start_qemu(board: Board, elf: Path, timeout: float, startup_timeout: float = 15.0,
               relay: Relay | None = None, extra_flags: Sequence[str] = (),
               machine_args: Sequence[str] = ()) -> Iterator[QemuSession]:
    """QEMU running elf, connected; killed on exit from the block whatever happens. timeout is the hard limit on
    QEMU's whole life. relay: the URL to open instead of QEMU's serial port, given that port (a test's proxy).
    extra_flags, machine_args: see qemu_command."""
    qemu = shutil.which(QEMU)
    if qemu is None:
        raise ToolchainError(f"{QEMU} not found: {QEMU_INSTALL_HINT}")
    killer = shutil.which("timeout")
    with tempfile.TemporaryDirectory(prefix="fg-qemu-") as scratch:
        log = Path(scratch) / "qemu.log"
        for _attempt in range(3):  # the free port may be taken between probing and QEMU binding it
            port = free_tcp_port()
            command = qemu_command(board, elf, port, extra_flags, machine_args)
            command[0] = qemu
            if killer:
                command = [killer, "-s", "KILL", f"{max(1, round(timeout))}", *command]
            session = process = None
            try:
                with _stop_signals_deferred(), log.open("wb") as log_file:  # no QEMU started but not yet ours
                    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log_file,
                                               stderr=log_file, start_new_session=True)
                url = relay(port) if relay is not None else f"socket://127.0.0.1:{port}"
                link = _connect(process, url, port, time.monotonic() + startup_timeout)
                if link is None:
                    status = process.wait()
                    session = QemuSession(process, log, port, None)  # type: ignore[arg-type]
                    if "Address already in use" in session.log_tail():
                        continue
                    raise ToolchainError(f"QEMU ({board.qemu_machine}) did not start: "
                                         f"{session.describe_exit(status)}")
                session = QemuSession(process, log, port, link, max(1, round(timeout)) if killer else 0.0)
                yield session
                return
            finally:
                if session is not None and session.link is not None:
                    session.link.close()
                if process is not None:
                    kill_process_group(process)
        raise ToolchainError("QEMU could not bind a free local TCP port for its serial line (3 attempts)")
