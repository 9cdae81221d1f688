"""A dataset on a QEMU board: the samples built into dataset firmwares (as many as the board's flash needs), each
run once under QEMU, the outputs of every sample back."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from firmware_gen.driver.deploy import Deployment
from firmware_gen.errors import UserError
from firmware_gen.link.dataset_session import run_dataset_firmware
from firmware_gen.link.session import encode_inputs
from firmware_gen.target.boards import Board, load_board
from firmware_gen.target.dataset_image import link_dataset_firmware, samples_per_image

Progress = Callable[[int, int], None]  # (samples done, samples in all)
Message = Callable[[str], None]


def image_chunks(count: int, per_image: int) -> list[range]:
    """The samples of each image: as few images as the flash allows, of even sizes."""
    images = -(-count // per_image)
    size = -(-count // images)
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def check_emulated(board: Board | str, port: str | None = None) -> None:
    """A dataset runs on a QEMU board only: each image would have to be flashed to a real one."""
    board = load_board(board) if isinstance(board, str) else board
    if port is not None or not board.emulated:
        raise UserError(f"--dataset with --board runs under QEMU; {board.name}{' at ' + port if port else ''} is a "
                        f"real board (the samples are built into the firmware, one image per run): use a QEMU board "
                        f"or the host")


def run_dataset(deployment: Deployment, samples: list[list[np.ndarray]], progress: Progress = lambda d, t: None,
                message: Message = lambda _: None) -> list[list[np.ndarray]]:
    """The outputs of every sample (one list of input arrays each), computed by deployment's firmware under QEMU."""
    firmware = deployment.firmware
    check_emulated(firmware.board)
    encoded = [b"".join(encode_inputs(firmware.interface, sample)) for sample in samples]
    room = samples_per_image(firmware, len(encoded[0]))
    if deployment.graph.state_tensors and room < len(encoded):  # a second image would start the state again
        raise UserError(f"the model keeps state from run to run: its {len(encoded)} samples must run in one "
                        f"firmware image, which holds {room} on {firmware.board.name}; use fewer, or the host")
    chunks = image_chunks(len(encoded), room)
    message(f"running {len(encoded)} samples on {firmware.board.name} under QEMU: {len(chunks)} dataset "
            f"firmware{'s' if len(chunks) > 1 else ''} with the samples in flash")
    outputs: list[list[np.ndarray]] = []
    for chunk in chunks:
        with tempfile.TemporaryDirectory(prefix="fg-dataset-image-") as scratch:
            image = link_dataset_firmware(firmware, [encoded[s] for s in chunk], Path(scratch))
            raw = run_dataset_firmware(image, len(chunk), len(encoded[0]), first_sample=chunk.start,
                                       sample_done=lambda s, first=chunk.start: progress(first + s + 1, len(encoded)))
        outputs += [[spec.array_from(data) for spec, data in zip(firmware.interface.outputs, sample, strict=True)]
                    for sample in raw]
    return outputs
