"""Cross builds of the hand-written add-one model: sizes, and images that do not fit fail at link time."""

from __future__ import annotations

import subprocess

import pytest
from target_fixtures import FIXTURE_MODEL, needs_cross_gcc

from firmware_gen.errors import DoesNotFitError, ToolchainError
from firmware_gen.resources import RUNTIME_DIR
from firmware_gen.target import cross_build as target_build
from firmware_gen.target.boards import list_boards, load_board
from firmware_gen.target.cross_build import build_firmware


@needs_cross_gcc
def test_small_firmware_and_its_sizes(tmp_path):
    build = build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path)
    assert build.fits and build.elf.is_file()
    assert build.workspace_bytes == 48
    assert 1000 < build.flash_bytes < 4096  # no printf: startup + UART + protocol + model in a few KB
    assert build.ram_bytes >= 4096 + 48  # stack + pool
    assert [r.name for r in build.regions] == ["flash", "SRAM"]
    assert build.interface.inputs[0].shape == (1, 16) and build.interface.num_steps == 2
    assert "qemu_cortex_m3" in build.summary()


@needs_cross_gcc
@pytest.mark.parametrize("board", [b for b in list_boards() if b != "qemu_cortex_m3"])
def test_builds_with_werror_for_every_board(tmp_path, board):
    assert build_firmware(FIXTURE_MODEL, board, tmp_path).fits


@needs_cross_gcc
def test_every_dsp_path_compiles_for_armv8m_mainline(tmp_path):
    """The kernels' __ARM_FEATURE_DSP paths (intrinsics and inline assembly) as the Cortex-M33 boards build them:
    Armv8-M Mainline with the DSP extension, -O2 -Werror, assembled."""
    sources = sorted(p for p in (RUNTIME_DIR / "kernels").rglob("*.c") if "__ARM_FEATURE_DSP" in p.read_text())
    command = ["arm-none-eabi-gcc", *load_board("mps2_an521").gcc_flags, "-std=c99", "-O2", "-Wall", "-Wextra",
               "-Werror", f"-I{RUNTIME_DIR / 'include'}", "-c", *map(str, sources)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    symbols = subprocess.run(["arm-none-eabi-nm", *sorted(map(str, tmp_path.glob("*.o")))], capture_output=True,
                             text=True, check=True).stdout
    assert len(sources) >= 9 and symbols.count("_dsp\n") >= 8  # the variants are there, not compiled out


@needs_cross_gcc
def test_too_many_constants_for_the_flash(tmp_path):
    with pytest.raises(DoesNotFitError) as error:
        build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path, extra_cflags=["-DFG_TEST_WEIGHT_PAD_BYTES=300000"])
    message = str(error.value)
    assert "B of flash" in message and "constants 300,0" in message
    assert "qemu_cortex_m3 has 262,144 B" in message
    needed = int(message.split("needs ")[1].split(" B of flash")[0].replace(",", ""))
    assert error.value.flash_over == needed - 262_144 > 0  # what a build over the flash is built again without
    assert not (tmp_path / "firmware.elf").exists()


@needs_cross_gcc
def test_too_large_a_pool_for_the_sram(tmp_path):
    with pytest.raises(DoesNotFitError, match=r"needs 7\d,\d{3} B of SRAM \(.*workspace pool 70,000 B.*\); "
                                              r"qemu_cortex_m3 has 65,536 B") as error:
        build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path, extra_cflags=["-DFG_TEST_POOL_BYTES=70000"])
    assert error.value.flash_over == 0


def test_missing_toolchain_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(target_build.shutil, "which", lambda name: None)
    with pytest.raises(ToolchainError, match="apt-get install --no-install-recommends gcc-arm-none-eabi "
                                             "libnewlib-arm-none-eabi"):
        build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path)


def test_model_dir_without_a_manifest(tmp_path):
    with pytest.raises(Exception, match="holds no manifest.json"):
        build_firmware(tmp_path, "qemu_cortex_m3", tmp_path / "out")
