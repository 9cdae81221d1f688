"""A faulty serial line for the link campaign: a TCP proxy between pyserial and QEMU's serial port that drops,
corrupts, duplicates and delays bytes and closes the connection at random points, seeded; and the campaign that runs
one firmware through it many times and sorts every run into ok, clean error, wrong output, traceback, hang, orphan.

Used by tests/target/test_link_faults.py (a reduced seeded campaign) and bench/link_faults.py (the full one).
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import select
import shutil
import socket
import tempfile
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from target_fixtures import no_qemu_left, qemu_processes_for

from firmware_gen.errors import UserError
from firmware_gen.link.runner import run_model
from firmware_gen.target.cross_build import FirmwareBuild

KINDS = ("clean", "drop", "corrupt", "duplicate", "delay", "close", "mixed")
DIRECTIONS = ("to_firmware", "to_host", "both")


@dataclass(frozen=True)
class FaultPlan:
    """What the line does to the bytes of one run: per byte rates, delays, where it closes."""

    seed: int
    kind: str
    direction: str
    drop: float = 0.0
    corrupt: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0  # probability that a chunk is held back
    delay_seconds: float = 0.0  # for at most this long
    close_after: int | None = None  # bytes through the proxy (both ways) before it closes both ends

    @staticmethod
    def random(seed: int) -> FaultPlan:
        rng = random.Random(seed)
        kind = KINDS[seed % len(KINDS)]
        direction = rng.choice(DIRECTIONS)
        rate = 10 ** rng.uniform(-4, -1.5)
        fields: dict = {}
        if kind in ("drop", "mixed"):
            fields["drop"] = rate
        if kind in ("corrupt", "mixed"):
            fields["corrupt"] = rate
        if kind in ("duplicate", "mixed"):
            fields["duplicate"] = rate
        if kind in ("delay", "mixed"):
            fields["delay"] = rng.uniform(0.05, 0.5)
            fields["delay_seconds"] = rng.choice((0.05, 0.2, 0.6, 2.0))
        if kind in ("close", "mixed") and (kind == "close" or rng.random() < 0.3):
            fields["close_after"] = rng.randrange(0, 1200)
        return FaultPlan(seed, kind, direction, **fields)

    def applies(self, direction: str) -> bool:
        return self.direction in ("both", direction)


class FaultyLine:
    """A one-connection TCP proxy on 127.0.0.1: the host connects to `url`, the proxy connects to the upstream port
    (retrying while QEMU starts listening) and pumps bytes both ways through the plan's faults."""

    def __init__(self, upstream_port: int, plan: FaultPlan, connect_timeout: float = 10.0) -> None:
        self.plan = plan
        self.upstream_port = upstream_port
        self.connect_timeout = connect_timeout
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stop = threading.Event()
        self.passed = 0
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = [self.listener]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(self.connect_timeout)
        try:
            host, _ = self.listener.accept()
        except OSError:
            return
        self.sockets.append(host)
        target = self._connect_upstream()
        if target is None:
            self.close()
            return
        self.sockets.append(target)
        pumps = [threading.Thread(target=self._pump, args=(host, target, "to_firmware"), daemon=True),
                 threading.Thread(target=self._pump, args=(target, host, "to_host"), daemon=True)]
        for pump in pumps:
            pump.start()
        for pump in pumps:
            pump.join()
        self.close()

    def _connect_upstream(self) -> socket.socket | None:
        deadline = time.monotonic() + self.connect_timeout
        while time.monotonic() < deadline and not self.stop.is_set():
            try:
                return socket.create_connection(("127.0.0.1", self.upstream_port), timeout=1.0)
            except OSError:
                time.sleep(0.02)
        return None

    def _pump(self, source: socket.socket, sink: socket.socket, direction: str) -> None:
        rng = random.Random(self.plan.seed * 2 + (direction == "to_host"))
        faulty = self.plan.applies(direction)
        while not self.stop.is_set():
            try:
                ready, _, _ = select.select([source], [], [], 0.05)
                if not ready:
                    continue
                chunk = source.recv(4096)
            except OSError:
                break
            if not chunk:
                break
            if faulty:
                chunk = self._damage(chunk, rng)
            if faulty and self.plan.delay and rng.random() < self.plan.delay:
                time.sleep(rng.uniform(0, self.plan.delay_seconds))
            if not self._forward(sink, chunk):
                break
        self.stop.set()

    def _forward(self, sink: socket.socket, chunk: bytes) -> bool:
        with self.lock:
            limit = self.plan.close_after
            if limit is not None and self.passed + len(chunk) > limit:
                chunk = chunk[:max(0, limit - self.passed)]
                self.passed = limit
                with contextlib.suppress(OSError):
                    sink.sendall(chunk)
                return False
            self.passed += len(chunk)
        try:
            sink.sendall(chunk)
        except OSError:
            return False
        return True

    def _damage(self, chunk: bytes, rng: random.Random) -> bytes:
        plan = self.plan
        out = bytearray()
        for byte in chunk:
            if plan.drop and rng.random() < plan.drop:
                continue
            if plan.corrupt and rng.random() < plan.corrupt:
                byte ^= 1 << rng.randrange(8)
            out.append(byte)
            if plan.duplicate and rng.random() < plan.duplicate:
                out.append(byte)
        return bytes(out)

    def close(self) -> None:
        self.stop.set()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()


@dataclass
class Outcome:
    seed: int
    verdict: str  # ok, clean_error, wrong_output, traceback, hang, orphan
    seconds: float
    detail: str = ""


@dataclass
class Campaign:
    firmware: FirmwareBuild
    inputs: list[np.ndarray]
    expected: list[np.ndarray]  # TFLM's outputs
    timeout: float = 8.0  # QEMU's hard limit and the run's timeout
    stall_timeout: float = 1.0
    hang_slack: float = 10.0  # a run longer than timeout + this is a hang

    def run_one(self, seed: int, scratch: Path) -> Outcome:
        """One run through a faulty line, with a private copy of the ELF so a QEMU left behind is this run's."""
        elf = scratch / f"seed{seed}.elf"
        shutil.copyfile(self.firmware.elf, elf)
        firmware = dataclasses.replace(self.firmware, elf=elf)
        plan = FaultPlan.random(seed)
        lines: list[FaultyLine] = []

        def relay(port: int) -> str:
            lines.append(FaultyLine(port, plan))
            return lines[-1].url

        started = time.monotonic()
        try:
            result = run_model(firmware, self.inputs, timeout=self.timeout, stall_timeout=self.stall_timeout,
                               relay=relay)
            same = all(np.array_equal(a.ravel(), b.ravel()) for a, b in zip(result.outputs, self.expected,
                                                                            strict=True))
            verdict, detail = ("ok", "") if same else ("wrong_output", f"{plan}")
        except UserError as error:
            text = str(error)
            verdict, detail = ("clean_error", text) if text and "\n" not in text else ("traceback", repr(text))
        except Exception:  # noqa: BLE001 - the campaign counts exactly these
            verdict, detail = "traceback", traceback.format_exc()
        finally:
            for line in lines:
                line.close()
        seconds = time.monotonic() - started
        if seconds > self.timeout + self.hang_slack:
            verdict, detail = "hang", f"{seconds:.1f} s: {detail}"
        left = [] if no_qemu_left(elf) else qemu_processes_for(elf)  # a QEMU killed may take a moment to go
        if left:
            verdict, detail = "orphan", f"pids {left}: {detail}"
        elf.unlink()
        return Outcome(seed, verdict, seconds, detail)

    def run(self, seeds: range | list[int], workers: int = 4) -> list[Outcome]:
        """Every seed's run, `workers` at a time; a run still going after twice its limit counts as a hang."""
        with tempfile.TemporaryDirectory(prefix="fg-link-faults-") as tmp:
            scratch = Path(tmp)
            pool = ThreadPoolExecutor(max_workers=workers)
            futures = {seed: pool.submit(self.run_one, seed, scratch) for seed in seeds}
            outcomes = []
            for seed, future in futures.items():
                try:
                    outcomes.append(future.result(timeout=2 * (self.timeout + self.hang_slack) * len(futures)))
                except TimeoutError:
                    outcomes.append(Outcome(seed, "hang", float("inf"), "the run never returned"))
            pool.shutdown(wait=False, cancel_futures=True)
        return outcomes


def counts(outcomes: list[Outcome]) -> dict[str, int]:
    tally = Counter(outcome.verdict for outcome in outcomes)
    return {"runs": len(outcomes), **{verdict: tally.get(verdict, 0) for verdict in
                                      ("ok", "clean_error", "wrong_output", "traceback", "hang", "orphan")}}
