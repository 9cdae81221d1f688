"""The local executor: a pool of worker processes over this machine's cores (each worker builds in this machine's
cache, which is safe to share: builds are published whole). A job that needs a real board goes to a pool of one
worker of its own, so one job at a time talks to that board. Results come back to the driver as they finish."""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from firmware_gen.target.boards import Board

Outcome = tuple[int, object, str]  # (index of the call, its result or the exception it ended with, the node)


def _interruptible() -> None:
    """In each worker: SIGTERM unwinds like Ctrl-C, so a running QEMU is killed by its `finally`."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)


class LocalExecutor:
    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def board_resource(self, board: Board) -> str | None:
        """The board a job must hold to itself: a real one (one job at a time on it); a QEMU board, none."""
        return None if board.emulated else board.name

    def cpus(self) -> int:
        return self.workers

    def close(self) -> None:
        pass

    def run(self, function: Callable, calls: Sequence[tuple], boards: Sequence[str | None]) -> Iterator[Outcome]:
        """function(*call) for every call, boards[i] the board call i holds (or None); each outcome as it ends."""
        context = multiprocessing.get_context("spawn")  # the driver has threads (the progress bar): no fork
        pools: dict[str | None, ProcessPoolExecutor] = {}
        futures: dict[Future, int] = {}
        node, finished = socket.gethostname(), False
        try:
            for index, (call, board) in enumerate(zip(calls, boards, strict=True)):
                if board not in pools:
                    pools[board] = ProcessPoolExecutor(self.workers if board is None else 1, context,
                                                       initializer=_interruptible)
                futures[pools[board].submit(function, *call)] = index
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    error = future.exception()
                    yield futures[future], error if error is not None else future.result(), node
            finished = True
        finally:
            for pool in pools.values():
                pool.shutdown() if finished else _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and stop the workers (SIGTERM: each kills its QEMU on the way out)."""
    workers = list((pool._processes or {}).values())  # the pool has no public way to stop running work
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
    for worker in workers:
        worker.join(timeout=30)
