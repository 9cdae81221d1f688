"""`firmware-gen validate MODEL --dataset FILE.npz --board B` (issue 11): the samples built into dataset firmwares,
run under QEMU; the report equals the host path's but for where it ran. A synthetic model whose samples need two
images of the 256 KiB flash of qemu_cortex_m3, a handful of vww samples on mps2_an386, the firmware's refusals, a
fault naming the sample, and bad input in one line."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import serial
from target_fixtures import needs_qemu

from firmware_gen.abi import CounterKind, FrameType
from firmware_gen.driver.dataset_deploy import image_chunks
from firmware_gen.driver.deploy import prepare
from firmware_gen.errors import UserError
from firmware_gen.link.dataset_session import receive_samples, run_dataset_firmware
from firmware_gen.link.framing import FirmwareFault, Hello, Link, LinkError, encode_frame
from firmware_gen.link.session import TargetSession
from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images
from firmware_gen.target.dataset_image import link_dataset_firmware, samples_per_image

from conftest import run_cli, shared_model

SMALL_FLASH_BOARD = "qemu_cortex_m3"
TWO_IMAGES_OF_SAMPLES = 12  # of wide_input_model on SMALL_FLASH_BOARD: one image holds fewer


def wide_input_model() -> bytes:
    """Two inputs, two outputs: a 48x64x8 int8 image (24 KiB a sample: the 256 KiB flash of qemu_cortex_m3 holds 10
    beside the firmware) -> average pool 8x8 -> flatten, plus a 384-element second input -> ADD -> FC (4); the sum
    is an output too."""
    graph = CalibratedBuilder(name="wide_input", seed=3)
    image = graph.input("image", calibration_images(graph.rng, 8, 48, 64, 8))
    offset = graph.input("offset", graph.rng.uniform(-1, 1, (8, 6 * 8 * 8)).astype(np.float32))
    pooled = graph.reshape(graph.average_pool(image, size=8, name="pool"), (1, 6 * 8 * 8), name="flatten")
    summed = graph.add(pooled, offset, name="sum")
    graph.output(graph.fully_connected(summed, 4, name="fc"))
    graph.output(summed)
    return graph.build()


@pytest.fixture(scope="module")
def wide_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wide") / "wide_input.tflite"
    path.write_bytes(wide_input_model())
    return path


def _dataset(path: Path, count: int, shapes: list[tuple[int, ...]], seed: int, classes: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    np.savez(path / "samples.npz", **{f"x{i}": rng.uniform(-1, 1, (count, *shape)).astype(np.float32)
                                      for i, shape in enumerate(shapes)})
    np.save(path / "labels.npy", rng.integers(0, classes, count))
    return path / "samples.npz", path / "labels.npy"


def _board_and_host_reports(model: Path, dataset: Path, labels: Path, board: str) -> tuple[dict, dict]:
    on_board = run_cli("validate", str(model), "--dataset", str(dataset), "--labels", str(labels), "--board", board,
                       "--json")
    assert on_board.returncode == 0, on_board.stderr
    on_host = run_cli("validate", str(model), "--dataset", str(dataset), "--labels", str(labels), "--json")
    assert on_host.returncode == 0, on_host.stderr
    return json.loads(on_board.stdout), json.loads(on_host.stdout)


def test_images_split_the_samples_evenly() -> None:
    assert image_chunks(10, 7) == [range(0, 5), range(5, 10)]
    assert image_chunks(100, 139) == [range(0, 100)]
    assert image_chunks(7, 3) == [range(0, 3), range(3, 6), range(6, 7)]


@needs_qemu
@pytest.mark.qemu
def test_synthetic_model_over_two_images_equals_the_host(wide_model: Path, tmp_path: Path) -> None:
    dataset, labels = _dataset(tmp_path, TWO_IMAGES_OF_SAMPLES, [(48, 64, 8), (384,)], seed=5, classes=4)
    board, host = _board_and_host_reports(wide_model, dataset, labels, SMALL_FLASH_BOARD)
    assert board.pop("where") == SMALL_FLASH_BOARD and host.pop("where") == "host"
    assert board == host and board["bit_exact"] and board["samples"] == TWO_IMAGES_OF_SAMPLES


@needs_qemu
@pytest.mark.qemu
def test_vww_samples_on_mps2_an386_equal_the_host(tmp_path: Path) -> None:
    dataset, labels = _dataset(tmp_path, 4, [(96, 96, 3)], seed=7, classes=2)
    board, host = _board_and_host_reports(shared_model("vww_96_int8"), dataset, labels, "mps2_an386")
    assert board.pop("where") == "mps2_an386" and host.pop("where") == "host"
    assert board == host and board["outputs"][0]["bit_exact"] == 4


@pytest.fixture(scope="module")
def wide_deployment(wide_model: Path):
    return prepare(wide_model.read_bytes(), str(wide_model), SMALL_FLASH_BOARD)


@needs_qemu
@pytest.mark.qemu
def test_the_firmware_refuses_a_dataset_it_does_not_hold(wide_deployment, tmp_path: Path) -> None:
    firmware = wide_deployment.firmware
    sample_bytes = sum(spec.nbytes for spec in firmware.interface.inputs)
    assert TWO_IMAGES_OF_SAMPLES / 2 <= samples_per_image(firmware, sample_bytes) < TWO_IMAGES_OF_SAMPLES
    with pytest.raises(LinkError, match="holds no samples"):
        run_dataset_firmware(firmware, 1, sample_bytes)
    image = link_dataset_firmware(firmware, [bytes(sample_bytes)] * 2, tmp_path)
    with pytest.raises(LinkError, match="wrong length"):
        run_dataset_firmware(image, 3, sample_bytes)


@needs_qemu
def test_too_many_samples_for_one_image_do_not_link(wide_deployment, tmp_path: Path) -> None:
    firmware = wide_deployment.firmware
    sample_bytes = sum(spec.nbytes for spec in firmware.interface.inputs)
    with pytest.raises(UserError, match="does not fit"):
        link_dataset_firmware(firmware, [bytes(sample_bytes)] * (samples_per_image(firmware, sample_bytes) + 2),
                              tmp_path)


def test_a_fault_names_the_sample_and_the_step() -> None:
    port = serial.serial_for_url("loop://", timeout=0.1)
    port.write(encode_frame(FrameType.SAMPLE, struct.pack("<Ii", 0, 0) + b"\x01\x02"))
    port.write(encode_frame(FrameType.FAULT, struct.pack("<i9I", 3, 3, 0x1234, 0, 0, 0, 1 << 30, 0, 0, 0)))
    hello = Hello(1, CounterKind.SYSTICK, (4,), (2,), 5, 64)
    with pytest.raises(FirmwareFault, match=r"^sample 8: the firmware faulted: HardFault in step 3"):
        receive_samples(TargetSession(Link(port, 1.0), hello, None), 4, 1.0, lambda _: None, first_sample=7)


def test_bad_input_on_a_board_is_one_line(tmp_path: Path) -> None:
    model = shared_model("hello_world_int8")
    np.savez(tmp_path / "bad.npz", x=np.zeros((3, 2), np.float32))
    np.savez(tmp_path / "good.npz", x=np.zeros((3, 1), np.float32))
    for dataset, extra, expected in ((tmp_path / "bad.npz", [], "shape [3, 2]"),
                                     (tmp_path / "good.npz", ["--port", "/dev/ttyACM9"], "runs under QEMU"),
                                     (tmp_path / "good.npz", ["--board", "nucleo_f746zg"], "real board")):
        board = [] if "--board" in extra else ["--board", "mps2_an385"]
        done = run_cli("validate", str(model), "--dataset", str(dataset), *board, *extra)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and expected in done.stderr, done.stderr
