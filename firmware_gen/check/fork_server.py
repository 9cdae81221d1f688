"""A child process per request, forked from one server that has already imported what the work needs.

The oracle runs TFLM in a child process so that a crash in TFLM kills nothing but that child. Starting Python and
importing numpy and tflite_micro for every child costs ~0.5 s of CPU; a process that validates many models (a
test session, a dataset) pays it once with a server: the server imports once and forks a fresh child for each
request, so every request still runs in a process of its own (crash isolation as before, nothing carried from one
request to the next).

No process outlives its client, whatever ends the client:
- The server runs in a session (process group) of its own. The client kills that group (server and child) when a
  request is interrupted (a signal's exception, a timeout, a broken pipe) and when it exits (atexit).
- A client killed outright (SIGKILL) never runs that clean-up: the server then reads end of file on its stdin,
  kills its child and exits; a child whose server dies is killed by the kernel (PR_SET_PDEATHSIG, Linux).

Protocol: one JSON line per request on the server's stdin, `[work, what]`; the server answers with one line, the
child's exit status as subprocess reports it (negative: the signal that ended it). The child's stderr goes to
`work/stderr.txt`, its stdout to /dev/null.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path

Handler = Callable[[Path, str], int]
STDERR_FILE = "stderr.txt"
_PR_SET_PDEATHSIG = 1


class ForkServer:
    """The client's end: starts the server (`command`, which must call `serve`) on first use, restarts it when it
    died, and stops it (the whole process group) when a request is interrupted or the client exits."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self._process: subprocess.Popen | None = None
        self._owner = 0  # the pid that started the server: a forked copy of the client must not use its pipes
        self._lock = threading.Lock()

    def run(self, work: Path, what: str, timeout: float) -> int | None:
        """handler(work, what) in a child of the server: its exit status, or None when it did not finish within
        timeout (the child is killed then)."""
        with self._lock:
            process = self._started()
            try:
                process.stdin.write(json.dumps([str(work), what]).encode() + b"\n")
                process.stdin.flush()
                ready, _, _ = select.select([process.stdout], [], [], timeout)
                answer = process.stdout.readline() if ready else None
            except BrokenPipeError:  # the server died since _started looked
                answer = b""
            except BaseException:
                self._stop()
                raise
            if answer:
                return int(answer)
            self._stop()  # no answer in time, or the server died: its status (negative: killed)
            return None if answer is None else process.returncode

    def stop(self) -> None:
        """Kill the server and its child. Takes no lock: atexit calls it while another thread may be waiting on
        a request."""
        process = self._process
        if process is not None and self._owner == os.getpid():
            _kill(process)

    def _started(self) -> subprocess.Popen:
        if self._process is not None and (self._owner != os.getpid() or self._process.poll() is not None):
            self._stop()
        if self._process is None:
            command = [*self.command, str(os.getpid())]  # the client's pid: `ps` (and the tests) see whose it is
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             start_new_session=True)
            self._owner = os.getpid()
            atexit.register(self.stop)
        return self._process

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        atexit.unregister(self.stop)
        if self._owner == os.getpid():
            _kill(process)
        with contextlib.suppress(OSError):
            process.stdin.close()
        process.stdout.close()


def _kill(process: subprocess.Popen) -> None:
    if process.returncode is None:  # never the group of a leader already reaped: its id may be in use again
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the server and its child, if one is running
        except ProcessLookupError:
            pass
    process.wait()


def serve(handler: Handler) -> None:
    """The server's loop: every request run by handler in a forked child, until stdin ends."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        while line := stdin.readline():
            work, what = json.loads(line)
            status = _run_forked(handler, Path(work), what, stdin.fileno())
            if status is None:
                return
            stdout.write(f"{status}\n".encode())
            stdout.flush()
    except BrokenPipeError:  # the client went away while the answer was written
        pass


def _run_forked(handler: Handler, work: Path, what: str, stdin: int) -> int | None:
    """The child's exit status; None (the child killed) when stdin became readable meanwhile: the client has
    gone, since it never sends a request before the answer to the last one."""
    exited_read, exited_write = os.pipe()  # the child holds the write end: it closes when the child ends
    server = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(exited_read)
        _child(handler, work, what, server)
    os.close(exited_write)
    try:
        ready, _, _ = select.select([exited_read, stdin], [], [])
        if exited_read not in ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        os.close(exited_read)


def _child(handler: Handler, work: Path, what: str, server: int) -> None:
    status = 1
    try:
        _die_with(server)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        errors = os.open(work / STDERR_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(errors, 2)
        status = handler(work, what)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(status)


def _die_with(server: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server:  # the server died before prctl took effect
        os._exit(1)
