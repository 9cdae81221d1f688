"""SIGTERM, SIGHUP and SIGINT sent to `firmware-gen` while it cross-compiles, while QEMU runs the model (or a
dataset firmware) and while validate runs TFLM (issue 10): the command exits with 128 + the signal, no QEMU is left,
no temporary directory and no half-built cache entry remain. A closed stdout pipe ends quietly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from target_fixtures import needs_qemu

from conftest import REPO, shared_model

pytestmark = [needs_qemu, pytest.mark.qemu]
SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
ORACLE = b"firmware_gen.check.oracle"


def _processes_mentioning(text: str, name: bytes = b"") -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if text.encode() in cmdline and name in cmdline:
                pids.append(int(entry.name))
    return pids


def _oracle_processes(client: int) -> dict[int, int]:
    """pid -> parent pid of the oracle's fork server that `client` started and of the TFLM child it forked (the
    child has the server's command line, which ends with the client's pid)."""
    found = {}
    for pid in _processes_mentioning("firmware_gen.check.oracle"):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if b"--serve" in cmdline and cmdline[-2:-1] == [str(client).encode()]:
            found[pid] = parent
    return found


def _child_at_work(child: bytes, cache: Path, tmp: Path) -> Callable[[int], bool]:
    """Whether firmware-gen (its pid) has `child` at work: the oracle (its server, starting or forking TFLM's
    run), or a process of that name working under cache or tmp (gcc, QEMU). tests/test_fork_server.py signals
    and kills clients while the forked child runs."""
    if child == ORACLE:
        return lambda client: bool(_oracle_processes(client))
    return lambda _: bool(_processes_mentioning(str(cache), child) or _processes_mentioning(str(tmp), child))


def _interrupt(command: list[str], marker: str, child: bytes, signum: int, cache: Path, tmp: Path) -> int:
    """Start `firmware-gen COMMAND`, wait for `marker` on its stderr, then for a process named `child` at work
    (up to 10 s), and send signum to firmware-gen alone (as `kill` does). Its exit status, once no process of the
    oracle it started is left."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "TMPDIR": str(tmp)}
    process = subprocess.Popen([sys.executable, "-m", "firmware_gen", *command], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=env, cwd=REPO)
    at_work = _child_at_work(child, cache, tmp)
    try:
        for line in process.stderr:
            if marker.encode() in line:
                break
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not at_work(process.pid):
            time.sleep(0.005)
        assert child != ORACLE or at_work(process.pid), "the oracle's server never started"
        process.send_signal(signum)
        process.stderr.read()
        status = process.wait(timeout=60)
        deadline = time.monotonic() + 60  # a process sent SIGKILL leaves the table once the kernel ran its exit
        while _oracle_processes(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _oracle_processes(process.pid), "the oracle's server or its child was left behind"
        return status
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _assert_clean(cache: Path, tmp: Path) -> None:
    # A QEMU being killed takes a moment to leave the process table on a loaded machine; an orphan stays.
    deadline = time.monotonic() + 60
    while _processes_mentioning(str(cache), b"qemu-system-arm") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_mentioning(str(cache), b"qemu-system-arm"), "a QEMU was left behind"
    assert not list(tmp.iterdir()), f"temporary files left: {list(tmp.iterdir())}"
    root = cache / "firmware-gen" / "firmware"
    assert not list(root.glob(".*.partial")), "a half-built cache entry was left"


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    done = subprocess.run([sys.executable, "-m", "firmware_gen", "run", str(shared_model("hello_world_int8")),
                           "--board", "mps2_an385"], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)}, timeout=300)
    assert done.returncode == 0, done.stderr
    return cache


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_signal_during_build(signum: int, tmp_path: Path):
    cache, tmp = tmp_path / "cache", tmp_path / "tmp"
    tmp.mkdir()
    command = ["run", str(shared_model("kws_ref_model")), "--board", "mps2_an386"]
    assert _interrupt(command, "cross-compiling", b"arm-none-eabi-gcc", signum, cache, tmp) == 128 + signum
    _assert_clean(cache, tmp)
    assert not [p for p in (cache / "firmware-gen" / "firmware").iterdir()], "an interrupted build was published"


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("command, marker, child", [
    ("run", "running on", b"qemu-system-arm"),
    ("validate", "through TensorFlow Lite Micro", ORACLE),
], ids=["run", "validate"])
def test_signal_during_run_and_validate(command: str, marker: str, child: bytes, signum: int, warm_cache: Path,
                                        tmp_path: Path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    status = _interrupt([command, str(shared_model("hello_world_int8")), "--board", "mps2_an385"], marker, child,
                        signum, warm_cache, tmp)
    assert status == 128 + signum
    _assert_clean(warm_cache, tmp)


def test_signal_during_a_dataset_run_on_a_board(warm_cache: Path, tmp_path: Path):
    """validate --dataset --board: the dataset firmware is linked in a temporary directory and run under QEMU (one
    signal: the clean-up is the run's, tested above with each)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    dataset = tmp_path / "samples.npz"
    np.savez(dataset, x=np.random.default_rng(0).uniform(-1, 1, (3000, 1)).astype(np.float32))
    command = ["validate", str(shared_model("hello_world_int8")), "--dataset", str(dataset), "--board", "mps2_an385"]
    status = _interrupt(command, "dataset firmware", b"qemu-system-arm", signal.SIGTERM, warm_cache, tmp)
    assert status == 128 + signal.SIGTERM
    _assert_clean(warm_cache, tmp)


def test_closed_stdout_pipe_ends_quietly():
    model = shared_model("person_detect")
    done = subprocess.run(f"{sys.executable} -m firmware_gen plan {model} | true", shell=True, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.stderr == "", done.stderr


def test_a_stop_signal_during_qemus_start_waits_until_the_process_is_ours():
    """A signal sent while QEMU is being started, from another thread (the kernel may hand a process's signal to
    any thread, e.g. one of numpy's), runs its handler only once the start is over."""
    import threading

    from firmware_gen.link.qemu import _stop_signals_deferred

    seen: list[object] = []
    previous = signal.signal(signal.SIGHUP, lambda signum, _frame: seen.append(signum))
    try:
        with _stop_signals_deferred():
            sender = threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGHUP))
            sender.start()
            sender.join()
            time.sleep(0.05)  # a handler that was not held back has run by now
            seen.append("started")
        seen.append("after")
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert seen == ["started", signal.SIGHUP, "after"]


def test_a_stop_signal_ends_a_bench_script_without_leaving_its_qemu(warm_cache: Path, tmp_path: Path):
    """bench/speed.py stops as the commands do: its QEMU is killed, it exits with 128 + the signal."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(warm_cache), "TMPDIR": str(tmp)}
    process = subprocess.Popen([sys.executable, "bench/speed.py", "--models", str(shared_model("kws_ref_model").parent),
                                "--only", "kws_ref_model", "--boards", "mps2_an385"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=REPO)
    try:
        deadline = time.monotonic() + 300
        while not _processes_mentioning(str(warm_cache), b"qemu-system-arm"):
            assert process.poll() is None and time.monotonic() < deadline, "no QEMU started"
            time.sleep(0.005)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 128 + signal.SIGTERM
        assert b"bench/speed.py: interrupted (SIGTERM)" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    _assert_clean(warm_cache, tmp)
