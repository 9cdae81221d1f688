"""`firmware-gen validate MODEL --dataset FILE.npz --board B`: every sample through the firmware on a QEMU board
(the samples built into its flash, driver/dataset_deploy.py) while TFLM runs them in its child process; the report
is the host path's (dataset_validation.compare_dataset), on the board."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from firmware_gen.check.dataset_validation import DatasetReport, Progress, compare_dataset, no_progress
from firmware_gen.check.oracle import run_tflm_batch
from firmware_gen.driver.dataset_deploy import Message, run_dataset
from firmware_gen.driver.deploy import Deployment


def validate_dataset_on_board(model: bytes, source: str, deployment: Deployment, samples: list[list[np.ndarray]],
                              labels: np.ndarray | None = None, progress: Progress = no_progress,
                              message: Message = lambda _: None) -> DatasetReport:
    with ThreadPoolExecutor(max_workers=1) as pool:  # TFLM's child process runs while QEMU does
        theirs = pool.submit(run_tflm_batch, model, samples)
        ours = run_dataset(deployment, samples, progress=progress, message=message)
        report = compare_dataset(deployment.graph, source, ours, theirs.result(), labels)
    report.where = deployment.firmware.board.name
    return report
