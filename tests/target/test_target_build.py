"""Cross builds of the hand-written add-one model: sizes, and images that do not fit fail at link time."""

from __future__ import annotations

import pytest
from target_fixtures import FIXTURE_MODEL, needs_cross_gcc

from firmware_gen.errors import DoesNotFitError, ToolchainError
from firmware_gen.target import cross_build as target_build
from firmware_gen.target.boards import list_boards
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
def test_too_many_constants_for_the_flash(tmp_path):
    with pytest.raises(DoesNotFitError) as error:
        build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path, extra_cflags=["-DFG_TEST_WEIGHT_PAD_BYTES=300000"])
    message = str(error.value)
    assert "B of flash" in message and "constants 300,0" in message
    assert "qemu_cortex_m3 has 262,144 B" in message
    assert not (tmp_path / "firmware.elf").exists()


@needs_cross_gcc
def test_too_large_a_pool_for_the_sram(tmp_path):
    with pytest.raises(DoesNotFitError, match=r"needs 7\d,\d{3} B of SRAM \(.*workspace pool 70,000 B.*\); "
                                              r"qemu_cortex_m3 has 65,536 B"):
        build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path, extra_cflags=["-DFG_TEST_POOL_BYTES=70000"])


def test_missing_toolchain_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(target_build.shutil, "which", lambda name: None)
    with pytest.raises(ToolchainError, match="apt-get install --no-install-recommends gcc-arm-none-eabi "
                                             "libnewlib-arm-none-eabi"):
        build_firmware(FIXTURE_MODEL, "qemu_cortex_m3", tmp_path)


def test_model_dir_without_a_manifest(tmp_path):
    with pytest.raises(Exception, match="holds no manifest.json"):
        build_firmware(tmp_path, "qemu_cortex_m3", tmp_path / "out")
