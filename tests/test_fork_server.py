"""The oracle's fork server (firmware_gen/check/fork_server.py): each request in a child of its own (a crash ends
only that child), and no process outlives the client, however the client ends: a timeout, an exception while it
waits (what a signal raises in firmware-gen), exit, or SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_gen.check.fork_server import STDERR_FILE, ForkServer

# The server's handler: "sleep S" sleeps, "crash" aborts, "fail" raises; anything else writes its pid to work/pid.
SERVER_CODE = """
import os, sys, time
from pathlib import Path
from firmware_gen.check.fork_server import serve

def handle(work: Path, what: str) -> int:
    (work / "pid").write_text(str(os.getpid()))
    if what.startswith("sleep"):
        time.sleep(float(what.split()[1]))
    if what == "crash":
        os.abort()
    if what == "fail":
        raise ValueError("the handler failed")
    return 7

serve(handle)
"""


def _server(tag: Path) -> ForkServer:
    return ForkServer([sys.executable, "-c", f"{SERVER_CODE}# {tag}"])


def _processes_tagged(tag: Path) -> list[int]:
    """The server and any child it forked (they share its command line, which holds the tag)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and f"# {tag}".encode() in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _none_left(tag: Path, within: float = 60.0) -> bool:
    """No process of the server is left, polled for up to `within` seconds: a process sent SIGKILL is gone only
    once the kernel has run its exit, which a loaded machine may delay."""
    deadline = time.monotonic() + within
    while _processes_tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _processes_tagged(tag)


def test_each_request_runs_in_a_child_of_its_own_and_a_crash_ends_only_that_child(tmp_path: Path):
    server = _server(tmp_path)
    try:
        assert server.run(tmp_path, "first", 60) == 7
        first = int((tmp_path / "pid").read_text())
        assert server.run(tmp_path, "crash", 60) == -signal.SIGABRT
        assert server.run(tmp_path, "fail", 60) == 1
        assert "ValueError: the handler failed" in (tmp_path / STDERR_FILE).read_text()
        assert server.run(tmp_path, "again", 60) == 7
        assert int((tmp_path / "pid").read_text()) != first
    finally:
        server.stop()
    assert _none_left(tmp_path)


def test_a_request_that_outlasts_its_timeout_stops_server_and_child(tmp_path: Path):
    server = _server(tmp_path)
    assert server.run(tmp_path, "sleep 60", 1.0) is None
    assert _none_left(tmp_path)
    assert server.run(tmp_path, "next", 60) == 7  # a new server
    server.stop()
    assert _none_left(tmp_path)


def test_an_exception_while_waiting_stops_server_and_child(tmp_path: Path):
    server = _server(tmp_path)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        with pytest.raises(KeyboardInterrupt):
            server.run(tmp_path, "sleep 60", 120)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert (tmp_path / "pid").exists(), "the child never ran"
    assert _none_left(tmp_path)


@pytest.mark.parametrize("how", ["exit", "SIGKILL"])
def test_no_process_outlives_its_client(how: str, tmp_path: Path):
    """A client that exits while the child runs cleans up (atexit); one killed outright cannot, and then the
    server sees its stdin end and the child dies with the server."""
    client_code = (f"import sys, threading, time; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
                   f"from pathlib import Path; from test_fork_server import _server\n"
                   f"tag = Path({str(tmp_path)!r}); server = _server(tag)\n"
                   f"threading.Thread(target=server.run, args=(tag, 'sleep 60', 120), daemon=True).start()\n"
                   f"while not (tag / 'pid').exists(): time.sleep(0.01)\n"
                   f"print('running', flush=True)\n"
                   f"sys.stdin.read()\n")
    client = subprocess.Popen([sys.executable, "-c", client_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert client.stdout.readline() == "running\n"
        assert len(_processes_tagged(tmp_path)) == 2  # the server and its child
        if how == "SIGKILL":
            os.kill(client.pid, signal.SIGKILL)
        client.stdin.close()
        client.wait(timeout=60)
        assert _none_left(tmp_path)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
