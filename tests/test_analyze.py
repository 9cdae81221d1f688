"""`firmware-gen analyze` and `build` (issue 11): the per-layer table, and a flash and RAM split in which every
number agrees with the ELF's own section headers and symbol table, read here with pyelftools directly."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from conftest import run_cli, shared_model

needs_cross_gcc = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="arm-none-eabi-gcc missing")

BOARD = "mps2_an386"
WEIGHT_SYMBOL = re.compile(r"fg_const_\d+|step\d+_\w*(weights|taps|packed)")


def _elf_facts(elf: Path) -> tuple[dict[str, int], int]:
    """(allocated section -> size, bytes of the weight symbols)."""
    with elf.open("rb") as handle:
        image = ELFFile(handle)
        sizes = {s.name: s["sh_size"] for s in image.iter_sections() if s["sh_flags"] & 2}  # SHF_ALLOC
        weights = sum(s["st_size"] for s in image.get_section_by_name(".symtab").iter_symbols()
                      if WEIGHT_SYMBOL.fullmatch(s.name))
    return sizes, weights


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, str]:
    """(analyze --json, the ELF of build, the text build printed)."""
    model = str(shared_model("kws_ref_model"))
    done = run_cli("analyze", model, "--board", BOARD, "--json")
    assert done.returncode == 0, done.stderr
    out = tmp_path_factory.mktemp("build") / "kws"
    built = run_cli("build", model, "--board", BOARD, "-o", str(out))
    assert built.returncode == 0, built.stderr
    return json.loads(done.stdout), out / "build" / "firmware.elf", built.stdout


@needs_cross_gcc
def test_layers(reports: tuple[dict, dict, str]) -> None:
    analysis = reports[0]
    layers = analysis["layers"]
    assert [layer["operator"] for layer in layers][:2] == ["CONV_2D", "DEPTHWISE_CONV_2D"]
    assert layers[0]["function"].startswith("fg_conv2d") and layers[0]["isa"]
    assert layers[0]["macs"] == 25 * 5 * 64 * 10 * 4  # output pixels x channels x 10x4 taps x 1 input channel
    assert layers[0]["read_bytes"] == 490 and layers[0]["written_bytes"] == 8000
    for layer in layers:
        for buffer in layer["buffers"]:
            assert buffer["offset"] + buffer["bytes"] <= analysis["pool_bytes"]
    assert analysis["totals"]["macs"] == sum(layer["macs"] for layer in layers)


@needs_cross_gcc
def test_every_number_agrees_with_the_elf(reports: tuple[dict, Path, str]) -> None:
    analysis, build_elf, text = reports
    memory = analysis["memory"]
    for elf in (Path(analysis["elf"]), build_elf):  # the same model and board: the same image
        sizes, weights = _elf_facts(elf)
        flash = sizes[".text"] + sizes.get(".ARM.exidx", 0) + sizes[".rodata"] + sizes[".data"]
        ram = sizes[".data"] + sizes[".bss"] + sizes[".fg_pool"] + sizes[".stack"]
        assert memory["flash_bytes"] == flash == sum(memory["flash"].values())
        assert memory["flash"]["weights"] == weights == analysis["totals"]["weight_bytes"]
        assert memory["ram"]["pool"] == sizes[".fg_pool"] == analysis["pool_bytes"]
        assert memory["ram"]["stack"] == sizes[".stack"]
        assert memory["ram_bytes"] == ram == sum(memory["ram"].values())
    flash_line = f"flash {memory['flash_bytes']:,} B: model code {memory['flash']['code']:,}, weights {weights:,}"
    assert flash_line in text  # build prints the same split
    assert f"RAM {memory['ram_bytes']:,} B: workspace pool {memory['ram']['pool']:,}" in text
    assert all(region["free"] == region["size"] - region["used"] for region in memory["regions"])
