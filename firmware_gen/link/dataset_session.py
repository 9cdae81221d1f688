"""The dataset session, host side (fg_protocol.h): a dataset firmware (target/dataset_image.py) runs every sample
built into it in one QEMU run and sends back only the outputs, one SAMPLE frame per sample."""

from __future__ import annotations

import struct
from collections.abc import Callable

from firmware_gen.abi import FirmwareExit, FrameType
from firmware_gen.errors import UserError
from firmware_gen.link.framing import FirmwareFault, LinkError, decode_done, decode_sample
from firmware_gen.link.session import TargetSession, next_frame, open_session
from firmware_gen.target.cross_build import FirmwareBuild

SampleDone = Callable[[int], None]  # called with the number of the sample whose outputs arrived


def receive_samples(session: TargetSession, count: int, sample_timeout: float, sample_done: SampleDone,
                    first_sample: int) -> list[tuple[bytes, ...]]:
    """The outputs of `count` samples, SAMPLE frame by frame, up to the DONE that ends them."""
    link, hello = session.link, session.hello
    results: list[tuple[bytes, ...]] = []
    while True:
        what = f"sample {first_sample + len(results)}: " if len(results) < count else ""
        try:
            frame = next_frame(link, sample_timeout, "the dataset run")
        except FirmwareFault as fault:
            fault.args = (f"{what}{fault}",)  # the fault names the step, this the sample
            raise
        if frame.type == FrameType.SAMPLE:
            result = decode_sample(frame, hello.output_bytes)
            if result.sample != len(results) or result.sample >= count:
                raise LinkError(f"the firmware sent sample {result.sample}; expected {len(results)} of {count}")
            if result.status != 0:
                raise UserError(f"{what}the model's invoke returned status {result.status}")
            results.append(result.outputs)
            sample_done(result.sample)
        elif frame.type == FrameType.DONE:
            decode_done(frame)
            if len(results) != count:
                raise LinkError(f"the firmware finished after {len(results)} of {count} samples")
            return results
        else:
            raise LinkError(f"unexpected frame from the firmware: type 0x{frame.type:02x}")


def run_dataset_firmware(firmware: FirmwareBuild, count: int, sample_bytes: int, *,
                         sample_done: SampleDone = lambda _: None, sample_timeout: float = 60.0,
                         timeout: float | None = None, first_sample: int = 0) -> list[tuple[bytes, ...]]:
    """Run the `count` samples of sample_bytes built into firmware under QEMU: the raw outputs of each sample.
    sample_timeout bounds the wait for one sample; timeout QEMU's whole life (default: generous per sample);
    first_sample: the dataset's number of the image's first sample, for the messages."""
    timeout = 120.0 + 10.0 * count if timeout is None else timeout
    with open_session(firmware, timeout=timeout) as session:
        session.link.send(FrameType.DATASET_REQUEST, struct.pack("<II", count, sample_bytes))
        results = receive_samples(session, count, sample_timeout, sample_done, first_sample)
        session.expect_exit(FirmwareExit.OK, f"the firmware sent the outputs of {count} samples")
    return results
