"""The Ray executor (`--ray auto|ADDRESS`, the optional extra `distributed`): each call a Ray task of one CPU; a
call that holds a board carries the custom resource `board:<name>`, so it runs only on a node started with it
(`ray start --resources '{"board:nucleo_f746zg": 1}'`). Each node builds in its own cache (its own disk); large
arguments (the models' bytes) are put in the object store once. Results come back to the driver, which alone
writes them. A task whose node is lost is retried on another (Ray's task retries): its outcome arrives once."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from firmware_gen.errors import UserError
from firmware_gen.target.boards import Board

Outcome = tuple[int, object, str]
RETRIES = 3  # a task whose worker or node died is run again, up to this many times
_ONE_ARGUMENT_BYTES = 64 * 1024  # bytes arguments larger than this go to the object store once


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError("--ray needs Ray: pip install 'firmware-gen[distributed]'") from None
    return ray


def _check_reachable(address: str) -> None:
    """A head address (HOST:PORT of its GCS) that answers, checked in seconds before Ray's own long retries."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise UserError(f"--ray {address}: expected auto or HOST:PORT of the head node (ray start --head prints it)")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as error:
        raise UserError(f"--ray {address}: cannot reach the head node ({error.strerror or error})") from None


def _on_node(function: Callable, *args: object) -> tuple[object, str]:
    """Runs in the Ray task: the call's result, and the node it ran on."""
    import ray

    return function(*args), ray.get_runtime_context().get_node_id()


class RayExecutor:
    name = "ray"

    def __init__(self, address: str) -> None:
        ray = _import_ray()
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        if address != "auto":
            _check_reachable(address)
        # Ray's notes to the driver (a task retried after its node was lost) go to stderr, from its own threads:
        # stdout is the command's result (--json).
        self._notes = contextlib.redirect_stdout(sys.stderr)
        self._notes.__enter__()
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
        except (ConnectionError, RuntimeError, ValueError) as error:
            self._notes.__exit__(None, None, None)
            message = " ".join(str(error).split())[:200]
            raise UserError(f"--ray {address}: cannot connect ({message})") from None
        self.ray, self.address = ray, address
        self.resources = ray.cluster_resources()

    def board_resource(self, board: Board) -> str | None:
        """The board a job must hold: a real board (some node must advertise it), or a QEMU board that some node
        advertises (the job then runs only there); else none, any node."""
        advertised = f"board:{board.name}" in self.resources
        if not board.emulated and not advertised:
            raise UserError(f"{board.name} is a real board and no node of the Ray cluster at {self.address} has it: "
                            f"start the node it is attached to with --resources '{{\"board:{board.name}\": 1}}'")
        return board.name if advertised else None

    def cpus(self) -> int:
        return int(self.resources.get("CPU", 1))

    def close(self) -> None:
        try:
            self.ray.shutdown()
        finally:
            self._notes.__exit__(None, None, None)

    def run(self, function: Callable, calls: Sequence[tuple], boards: Sequence[str | None]) -> Iterator[Outcome]:
        ray = self.ray
        task = ray.remote(num_cpus=1, max_retries=RETRIES)(_on_node)
        stored: dict[int, Any] = {}  # id of a large bytes argument: its object in the store

        def argument(value: object) -> object:
            if isinstance(value, bytes) and len(value) > _ONE_ARGUMENT_BYTES:
                if id(value) not in stored:
                    stored[id(value)] = ray.put(value)
                return stored[id(value)]
            return value

        refs = {task.options(resources={f"board:{board}": 1} if board else {})
                .remote(function, *(argument(a) for a in call)): index
                for index, (call, board) in enumerate(zip(calls, boards, strict=True))}
        pending, finished = list(refs), False
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        result, node = ray.get(ref)
                    except Exception as error:  # the task failed after its retries
                        result, node = error, ""
                    yield refs[ref], result, node
            finished = True
        finally:
            if not finished:  # interrupted: a running task gets KeyboardInterrupt, so its QEMU is killed
                for ref in pending:
                    ray.cancel(ref)
