"""One job of a sweep, wherever it runs (a local worker process or a Ray task): generate + cross-build (in this
machine's build cache) + run on the board (QEMU, or a real board attached here: flashed, then run over its serial
port) + optionally the same inputs through TFLM. Its row: the sizes, the instruction count, the verdict, the wall
time; a job that fails is a row with its one-line error, never an exception out of here."""

from __future__ import annotations

import time

import numpy as np

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.deploy import Deployment, prepare, run
from firmware_gen.errors import UserError
from firmware_gen.sweep.spec import Job

ROW_FIELDS = ("job", "model", "board", "options", "pool_bytes", "flash_bytes", "ram_bytes", "instructions",
              "estimated_cycles", "bit_exact", "wall_s", "error", "node")


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if isinstance(error, UserError) else f"{type(error).__name__}: {text}"


def _real_board_port(deployment: Deployment) -> str | None:
    """A real board attached to this machine: flashed with the firmware, and the port its probe's UART is on."""
    board = deployment.firmware.board
    if board.emulated:
        return None
    from firmware_gen.link.flashing import flash
    from firmware_gen.link.serial_ports import find_board_port

    flash(board, deployment.firmware.elf)
    return find_board_port(board)


def _measure(job: Job, model: bytes, row: dict) -> None:
    board = job.target()
    deployment = prepare(model, job.path, board, interface=job.options["interface"], options=job.planning(),
                         generation=job.generation(), semihosting=None if board.emulated else False)
    row.update(pool_bytes=deployment.compiled.plan.pool_bytes, flash_bytes=deployment.firmware.flash_bytes,
               ram_bytes=deployment.firmware.ram_bytes)
    inputs = random_inputs(deployment.graph, job.seed)
    result = run(deployment, inputs, serial_url=_real_board_port(deployment),
                 cycles=job.options.get("cycles", False) and board.emulated)
    row["instructions"] = result.instructions
    row["estimated_cycles"] = round(result.cycles.cycles) if result.cycles is not None else None
    if job.validate:
        equal = outputs_equal_oracle(model, inputs, [np.asarray(o) for o in result.outputs],
                                     len(deployment.graph.tensors))
        row["bit_exact"] = all(equal)


def run_job(job: Job, model: bytes) -> dict:
    """The row of `job` (model: the bytes of job.path, sent by the driver); its node is the driver's to fill."""
    row: dict = {"job": job.key, "model": job.model, "board": job.board, "options": job.options,
                 "pool_bytes": None, "flash_bytes": None, "ram_bytes": None, "instructions": None,
                 "estimated_cycles": None, "bit_exact": None, "wall_s": None, "error": None, "node": None}
    started = time.monotonic()
    try:
        _measure(job, model, row)
    except Exception as error:  # a failing job is a row, and the others go on
        row["error"] = _one_line(error)
    row["wall_s"] = round(time.monotonic() - started, 3)
    return row


WORKER_FAILED = "the worker failed: "


def failed_row(job: Job, error: BaseException) -> dict:
    """The row of a job whose worker, or node, failed under it (after Ray's retries): the job runs again when the
    sweep is resumed."""
    return {"job": job.key, "model": job.model, "board": job.board, "options": job.options, "pool_bytes": None,
            "flash_bytes": None, "ram_bytes": None, "instructions": None, "estimated_cycles": None,
            "bit_exact": None, "wall_s": None,
            "error": WORKER_FAILED + _one_line(error), "node": None}


def worker_failed(row: dict) -> bool:
    return (row["error"] or "").startswith(WORKER_FAILED)


def same_result(a: dict, b: dict) -> bool:
    """Two rows of the same job agree on everything but where and how long it ran."""
    return all(a[name] == b[name] for name in ROW_FIELDS if name not in ("wall_s", "node"))
