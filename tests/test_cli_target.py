"""The user's path to a board: `firmware-gen build / run / validate --board / demo`, on QEMU."""

from __future__ import annotations

import json
import shutil

import pytest

from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS

from conftest import SHARED_MODEL_NAMES, run_cli, shared_model

pytestmark = pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                                reason="needs qemu-system-arm and arm-none-eabi-gcc (scripts/bootstrap.sh)")

# ad01's 270,880 B of weights cannot fit the LM3S6965's 256 KiB of flash.
FITS_QEMU_CORTEX_M3 = [name for name in SHARED_MODEL_NAMES if name != "ad01_int8"]


@pytest.mark.parametrize("name", SHARED_MODEL_NAMES)
def test_shared_model_bit_exact_on_mps2_an385(name: str) -> None:
    done = run_cli("validate", str(shared_model(name)), "--board", "mps2_an385", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bit_exact"] is True


@pytest.mark.parametrize("name", FITS_QEMU_CORTEX_M3)
def test_shared_model_bit_exact_on_qemu_cortex_m3(name: str) -> None:
    done = run_cli("validate", str(shared_model(name)), "--board", "qemu_cortex_m3", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bit_exact"] is True


def test_model_too_big_for_the_board_fails_with_numbers_and_leaves_nothing(tmp_path) -> None:
    out = tmp_path / "ad01"
    done = run_cli("build", str(shared_model("ad01_int8")), "--board", "qemu_cortex_m3", "-o", str(out))
    assert done.returncode == 2
    message = done.stderr.strip().splitlines()[-1]
    assert "B of flash" in message and "qemu_cortex_m3 has 262,144 B" in message, message
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_run_json_is_deterministic(tmp_path) -> None:
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(SYNTHETIC_MODELS["tiny_cnn"]())
    runs = [json.loads(run_cli("run", str(model), "--board", "mps2_an386", "--json").stdout) for _ in range(2)]
    assert runs[0]["instructions"] == runs[1]["instructions"] > 0
    assert runs[0]["outputs"] == runs[1]["outputs"]
    assert [layer["opcode"] for layer in runs[0]["profile"]][:1] == ["CONV_2D"]
    assert sum(layer["count"] for layer in runs[0]["profile"]) <= runs[0]["instructions"]


def test_unknown_board_lists_the_known_ones(tmp_path) -> None:
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(SYNTHETIC_MODELS["tiny_cnn"]())
    done = run_cli("run", str(model), "--board", "nucleo_nowhere")
    assert done.returncode == 2
    assert "qemu_cortex_m3" in done.stderr and "Traceback" not in done.stderr


def test_boards_lists_cpu_flash_and_ram() -> None:
    done = run_cli("boards", "--json")
    boards = {b["name"]: b for b in json.loads(done.stdout)["boards"]}
    assert boards["qemu_cortex_m3"]["flash_bytes"] == 262144 and boards["qemu_cortex_m3"]["ram_bytes"] == 65536
    assert {"mps2_an385", "mps2_an386", "mps2_an500", "mps3_an547"} <= set(boards)


def test_demo_runs_mobilenet_on_qemu_cortex_m3_bit_exact() -> None:
    done = run_cli("demo")
    assert done.returncode == 0, done.stderr
    assert "outputs equal TensorFlow Lite Micro's" in done.stdout
    assert "DEPTHWISE_CONV_2D" in done.stdout and "qemu_cortex_m3" in done.stdout


def test_build_into_an_existing_directory_replaces_only_its_build(tmp_path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("the user's own file")
    model = tmp_path / "tiny.tflite"
    model.write_bytes(SYNTHETIC_MODELS["tiny_cnn"]())
    for _ in range(2):
        done = run_cli("build", str(model), "--board", "mps2_an385", "-o", str(out))
        assert done.returncode == 0, done.stderr
    assert (out / "build" / "firmware.elf").is_file() and (out / "model" / "model.c").is_file()
    assert (out / "notes.txt").read_text() == "the user's own file"
    assert sorted(p.name for p in out.iterdir()) == ["build", "model", "notes.txt"]  # nothing half-moved
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no private build left beside it
    elf = (out / "build" / "firmware.elf").read_bytes()
    too_big = run_cli("build", str(shared_model("ad01_int8")), "--board", "qemu_cortex_m3", "-o", str(out))
    assert too_big.returncode == 2
    assert (out / "build" / "firmware.elf").read_bytes() == elf  # a failed build leaves the earlier one whole
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_build_reuses_the_cached_firmware_of_an_earlier_run(tmp_path) -> None:
    model = tmp_path / "tiny.tflite"
    model.write_bytes(SYNTHETIC_MODELS["tiny_cnn"](seed=7))
    assert run_cli("run", str(model), "--board", "mps2_an385").returncode == 0  # builds into the cache
    out = tmp_path / "out"
    done = run_cli("build", str(model), "--board", "mps2_an385", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "cross-compiling" not in done.stderr  # copied from the cache, not built again
    assert (out / "build" / "firmware.elf").is_file() and (out / "model" / "model.c").is_file()
    assert "tiny" in (out / "model" / "model.c").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["build", "model"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    rebuilt = run_cli("run", str(model), "--board", "mps2_an385", "--json")  # the cache entry is still whole
    assert rebuilt.returncode == 0 and "cross-compiling" not in rebuilt.stderr
