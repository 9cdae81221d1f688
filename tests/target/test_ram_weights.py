"""--weights-in-ram: the tables the cycle estimate says cost the most flash wait states per byte go to RAM, within
the budget; the firmware's RAM (and its fit check) counts them; the outputs stay equal to TFLM's; a bad budget is
one line and exit status 2."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from target_fixtures import with_flash_wait_states

from firmware_gen.backend.options import GenerationOptions, RamWeight
from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver import ram_weights
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.driver.ram_weights import (
    AUTO,
    Candidate,
    choose,
    parse_budget,
    prepare_with_ram_weights,
    remember_profile,
    table_symbols,
)
from firmware_gen.errors import DoesNotFitError, UserError
from firmware_gen.link.flash_profile import flash_profile
from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images
from firmware_gen.target.boards import BOARDS_DIR, load_board
from firmware_gen.target.disassembly import LLVM_BIN
from firmware_gen.target.elf_image import read_elf
from firmware_gen.target.memory_timing import MemoryTiming
from tests.conftest import run_cli

BOARD = "mps2_an386"
needs_tools = pytest.mark.skipif(not (LLVM_BIN / "llvm-objdump").is_file() or shutil.which("qemu-system-arm") is None
                                 or shutil.which("arm-none-eabi-gcc") is None,
                                 reason="needs llvm-19, qemu-system-arm, arm-none-eabi-gcc")


def _model() -> bytes:
    """Two 1x1 convolutions, one kernel (their weights read again for every block of pixels), and a
    fully-connected layer (its 4 KB read once)."""
    graph = CalibratedBuilder(name="ram_weights", seed=3)
    x = graph.input("input", calibration_images(graph.rng, 4, 8, 8, 16))
    x = graph.conv2d(x, 32, kernel=1, name="pointwise")
    x = graph.conv2d(x, 16, kernel=1, name="pointwise_2")
    x = graph.reshape(x, (1, 8 * 8 * 16), name="flatten")
    graph.output(graph.fully_connected(x, 4, name="fc"))
    return graph.build()


def _flash_waits(board) -> MemoryTiming:
    """The board's regions with an L4R5-like flash: 5 wait states hidden on fetches only, 8 bytes per read."""
    return MemoryTiming(with_flash_wait_states(board.name).regions, "SRAM", "SRAM", "code SRAM as a 5-ws flash")


def test_the_most_cycles_saved_per_byte_first_within_the_budget() -> None:
    candidates = [Candidate("fc_weights", 4096, 2560.0), Candidate("conv_weights", 512, 5120.0),
                  Candidate("params", 100, 50.0), Candidate("unread", 64, 0.0)]
    assert [w.symbol for w in choose(candidates, 1024)] == ["conv_weights", "params"]
    assert [w.symbol for w in choose(candidates, 8192)] == ["conv_weights", "fc_weights", "params"]
    assert choose(candidates, 511) == (RamWeight("params", 100, 50.0),)


def test_a_budget_is_bytes_or_auto() -> None:
    assert parse_budget("64K") == 65536 and parse_budget("1m") == 1 << 20 and parse_budget("4000") == 4000
    assert parse_budget("AUTO") == AUTO
    with pytest.raises(UserError, match="--weights-in-ram 'lots'"):
        parse_budget("lots")


def test_a_bad_budget_is_one_line(tmp_path) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(_model())
    done = run_cli("build", str(model), "--board", BOARD, "--weights-in-ram", "12Q", "-o", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--weights-in-ram '12Q'" in done.stderr
    assert not (tmp_path / "out").exists()


@needs_tools
def test_the_estimate_picks_the_reread_table_and_the_outputs_stay_exact() -> None:
    data = _model()
    board = load_board(BOARD)
    same, none = prepare_with_ram_weights(data, "m.tflite", board, AUTO)  # its SRAM charges no wait states
    assert none == ()
    memory = _flash_waits(board)
    profile = flash_profile(same.firmware, random_inputs(same.graph), memory)
    reads = {r.name: r for r in profile.reads.values()}
    pointwise = [r for r in reads.values() if r.name.startswith(("step0_", "step1_")) and r.size >= 1024]
    fc = next(r for r in reads.values() if r.name.startswith("step3_") and r.size >= 4096)  # step2: the reshape
    assert len(pointwise) == 2 and all(r.reread > 2 for r in pointwise) and fc.reread < 1.01
    budget = max(r.size for r in pointwise) + 200  # one of the two
    deployment, chosen = prepare_with_ram_weights(data, "m.tflite", board, budget, memory=memory)
    names = {w.symbol for w in chosen}
    best = max(pointwise, key=lambda r: r.wait_cycles / r.size)
    assert best.name in names and fc.name not in names and sum(r.name in names for r in pointwise) == 1
    image = read_elf(deployment.firmware.elf)
    assert next(s for s in image.symbols if s.name == best.name).section == ".data"
    assert image.size(".data") >= read_elf(same.firmware.elf).size(".data") + best.size
    inputs = random_inputs(deployment.graph)
    result = run(deployment, inputs, cycles=True)
    assert all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))
    after = flash_profile(deployment.firmware, inputs, memory, counts=result.trace).estimate
    # The other convolution runs the same kernel loop from flash: its own step's sample keeps it charged.
    expected = profile.estimate.wait_cycles - sum(w.saved_cycles for w in chosen)
    assert abs(after.wait_cycles - expected) <= 0.01 * profile.estimate.wait_cycles
    source = (deployment.firmware.model_dir / "model_weights.c").read_text()
    assert f"{best.name}: " in source and "estimated cycles per inference" in source


def _kernels(deployment) -> set[str]:
    source = (deployment.firmware.model_dir / "model.c").read_text()
    return {line.split("(")[0].strip() for line in source.splitlines() if line.strip().startswith("fg_conv2d")}


@needs_tools
def test_with_every_charged_table_in_ram_the_variants_are_chosen_for_wait_free_flash() -> None:
    data = _model()
    timed = with_flash_wait_states(BOARD)  # its variants weigh the flash reads: weights staged in RAM by blocks
    memory = _flash_waits(load_board(BOARD))
    assert _kernels(prepare(data, "m.tflite", timed)) == {"fg_conv2d_pointwise_staged_dsp"}
    lines: list[str] = []
    all_in, chosen = prepare_with_ram_weights(data, "m.tflite", timed, AUTO, memory=memory, progress=lines.append)
    assert any("chosen as for wait-free flash" in line for line in lines)
    assert _kernels(all_in) == {"fg_conv2d_pointwise_dsp"}
    inputs = random_inputs(all_in.graph)
    result = run(all_in, inputs, cycles=True)
    assert all(outputs_equal_oracle(data, inputs, result.outputs, len(all_in.graph.tensors)))
    assert flash_profile(all_in.firmware, inputs, memory, counts=result.trace).estimate.wait_cycles < 0.01 * sum(
        w.saved_cycles for w in chosen)
    one = min(w.bytes for w in chosen if w.symbol.startswith(("step0_", "step1_")) and w.bytes >= 1024)
    some, _ = prepare_with_ram_weights(data, "m.tflite", timed, one + 200, memory=memory)  # the rest stays in flash
    assert "fg_conv2d_pointwise_staged_dsp" in _kernels(some)


@needs_tools
def test_the_fit_check_counts_the_tables_in_ram() -> None:
    data = _model()
    board = load_board(BOARD)
    flash = prepare(data, "m.tflite", board)
    table = next(s for s in read_elf(flash.firmware.elf).symbols if s.name.startswith("step3_") and s.size > 4000)
    in_ram = GenerationOptions(ram_weights=(RamWeight(table.name, table.size, 1.0),))
    moved = prepare(data, "m.tflite", board, generation=in_ram)
    assert moved.firmware.ram_bytes >= flash.firmware.ram_bytes + table.size
    sram = board.region_for("data")
    used = next(r.used for r in flash.firmware.regions if r.name == sram.name)
    small = dataclasses.replace(board, regions=tuple(dataclasses.replace(r, size=used + table.size // 2)
                                                     if r.name == sram.name else r for r in board.regions))
    # mps2_an386 by name, with less SRAM: the build cache knows it by all it states (Board.identity), not its name
    prepare(data, "m.tflite", small)  # fits with the table in flash
    with pytest.raises(DoesNotFitError, match=sram.name):
        prepare(data, "m.tflite", small, generation=in_ram)


FLASH = 'holds = ["code", "rodata"]'


def _real_board(tmp_path, name: str, changes: dict[str, str]) -> str:
    """A copy of a real board's file with `changes` (each text replaced once), under another name."""
    text = (BOARDS_DIR / f"{name}.toml").read_text()
    for old, new in {f'name = "{name}"': f'name = "{name}_waits"', **changes}.items():
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / f"{name}_waits.toml"
    path.write_text(text)
    return str(path)


@needs_tools
def test_a_real_board_is_estimated_on_its_stand_in_and_built_without_it(tmp_path) -> None:
    # NUCLEO-U575ZI-Q at the MLPerf 160 MHz: 4 flash wait states (RM0456), fetches hidden by the ICACHE; its
    # stand-in, mps2_an521, runs the firmware on its second CPU (the register sample follows that one).
    path = _real_board(tmp_path, "nucleo_u575zi_q", {"wait_states = 0           # at 4 MHz": "wait_states = 4 #",
                                                     'cache = "none"            # the 8 KiB': 'cache = "fetch" #'})
    data, lines = _model(), []
    deployment, chosen = prepare_with_ram_weights(data, "m.tflite", path, 1500, progress=lines.append)
    assert deployment.firmware.board.name == "nucleo_u575zi_q_waits"
    assert any("on mps2_an521" in line and "two QEMU runs" in line for line in lines)
    symbols = {s.name: s for s in read_elf(deployment.firmware.elf).symbols}
    names = {w.symbol for w in chosen}
    assert all(symbols[n].section == ".data" for n in names)
    assert sum(n.startswith(("step0_", "step1_")) and symbols[n].size >= 1024 for n in names) == 1
    assert not any(n.startswith("step3_") and symbols[n].size >= 4096 for n in names)  # the fc's, read once
    stand_in = prepare(data, "m.tflite", "mps2_an521", generation=GenerationOptions(ram_weights=chosen))
    inputs = random_inputs(stand_in.graph)
    assert all(outputs_equal_oracle(data, inputs, run(stand_in, inputs).outputs, len(stand_in.graph.tensors)))


def test_a_real_board_without_a_stand_in_is_one_line(tmp_path) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(_model())
    board = _real_board(tmp_path, "nrf52840dk", {'estimate_on = "mps2_an386"': "#", FLASH: f"{FLASH}\nwait_states = 2"})
    done = run_cli("build", str(model), "--board", board, "--weights-in-ram", "64K", "-o", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "nrf52840dk_waits does not run under QEMU" in done.stderr
    assert not (tmp_path / "out").exists()


@needs_tools
def test_a_profile_the_caller_made_is_used_not_made_again(monkeypatch) -> None:
    # bench/speed.py profiles the all-in-flash build for its own estimate, with its own inputs.
    data = _model()
    board = load_board(BOARD)
    memory = _flash_waits(board)
    first = prepare(data, "m.tflite", board)
    inputs = random_inputs(first.graph, seed=5)
    traced = run(first, inputs, cycles=True)
    given = remember_profile(first, memory, board.core,
                             flash_profile(first.firmware, inputs, memory, counts=traced.trace))
    own = flash_profile(first.firmware, random_inputs(first.graph, seed=0), memory)
    tables = table_symbols(first, GenerationOptions().name)
    by_name = sorted(given, key=lambda c: c.symbol)
    assert by_name == sorted((Candidate(r.name, r.size, pytest.approx(r.wait_cycles, rel=1e-9))
                              for r in own.reads.values() if r.name in tables), key=lambda c: c.symbol)
    monkeypatch.setattr(ram_weights, "flash_profile", lambda *args, **kwargs: pytest.fail("profiled again"))
    budget = max(c.bytes for c in given if c.saved_cycles) + 200  # not every table: no second choice
    _, chosen = prepare_with_ram_weights(data, "m.tflite", board, budget, memory=memory)
    assert chosen and {w.symbol for w in chosen} <= {c.symbol for c in given}
