"""`firmware-gen validate MODEL --dataset FILE.npz --board B`: every sample through the firmware on a QEMU board
(the samples built into its flash, driver/dataset_deploy.py) while TFLM runs them in its child process; the report
is the host path's (dataset_validation.compare_dataset), on the board."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from firmware_gen.check.dataset_validation import DatasetReport, Progress, compare_dataset, no_progress
from firmware_gen.check.oracle import run_tflm_batch
from firmware_gen.check.reference_model import ReferenceModel
from firmware_gen.driver.dataset_deploy import Message, run_dataset
from firmware_gen.driver.deploy import Deployment


def validate_dataset_on_board(model: bytes, source: str, deployment: Deployment, samples: list[list[np.ndarray]],
                              labels: np.ndarray | None = None, progress: Progress = no_progress,
                              message: Message = lambda _: None, reference: ReferenceModel | None = None,
                              float_samples: list[list[np.ndarray]] | None = None) -> DatasetReport:
    """reference, float_samples: a float model and the samples as float, for the quantization error."""
    with ThreadPoolExecutor(max_workers=1) as pool:  # TFLM's child process runs while QEMU does
        theirs = pool.submit(run_tflm_batch, model, samples)
        ours = run_dataset(deployment, samples, progress=progress, message=message)
        floats = reference.run(float_samples if float_samples is not None else samples) if reference else None
        report = compare_dataset(deployment.graph, source, ours, theirs.result(), labels, floats,
                                 reference.path if reference else None)
    report.where = deployment.firmware.board.name
    return report
