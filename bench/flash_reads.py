"""Where the ESTIMATED flash wait states of an inference go: per model, the estimated cycles on a board's core with
the memory of the board the field publishes on (bench/published_cycles.py: the M4 on an STM32L4R5-like memory),
how many of them are data wait states, and per symbol (a weight table, a function's literal pool) the bytes read
from flash per inference against its size. With --weights-in-ram, the same after the firmware copies the tables
the estimate picks into RAM within that budget (driver/ram_weights.py). Estimates, beside the exact instruction
count, and the outputs checked against TFLM.

    python bench/flash_reads.py [--board mps2_an386] [--only ad01_int8,...] [--top 8]
                                [--weights-in-ram BYTES|auto|published] [--compact] [--portable]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.driver.ram_weights import parse_budget, prepare_with_ram_weights
from firmware_gen.link.flash_profile import flash_profile
from firmware_gen.target.boards import load_board

sys.path.insert(0, str(Path(__file__).resolve().parent))
from published_cycles import (  # noqa: E402
    PUBLISHED_CORE,
    PUBLISHED_MEMORY,
    PUBLISHED_SRAM,
    published_board,
    published_memory,
)

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
MODELS = ("vww_96_int8", "pretrainedResnet_quant", "kws_ref_model", "ad01_int8")



def report(path: Path, board_name: str, top: int, budget: int | str | None, compact: bool, portable: bool) -> bool:
    """Print one model's table; True if its outputs equal TFLM's."""
    data = path.read_bytes()
    core = PUBLISHED_CORE[board_name]
    board = load_board(board_name)
    board = dataclasses.replace(board, kernel_variants=False) if portable else board
    board = published_board(board, core)  # the variants that weigh flash reads choose for the published memory
    generation = GenerationOptions(compact_weights=compact)
    first = prepare(data, str(path), board, generation=generation)
    memory = published_memory(first.firmware.board, core)
    deployment, placed = first, ()
    if budget == "published":  # the published part's SRAM less what the firmware takes there already
        budget = max(0, PUBLISHED_SRAM[core] - first.firmware.ram_bytes)
    if budget is not None:
        deployment, placed = prepare_with_ram_weights(data, str(path), board, budget, memory=memory, core=core,
                                                      generation=generation)
    inputs = random_inputs(deployment.graph)
    result = run(deployment, inputs, cycles=True)
    profile = flash_profile(deployment.firmware, inputs, memory, core, counts=result.trace)
    estimate = profile.estimate
    exact = all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))
    ram = sum(w.bytes for w in placed)
    kernels = " (portable kernels)" if portable else ""
    print(f"\n{path.stem} on {board.name}{kernels}, {core} timing: {result.instructions / 1e6:.3f} M instructions "
          "(exact), "
          f"ESTIMATED {estimate.cycles / 1e6:.3f} M cycles, of which {estimate.wait_cycles / 1e6:.3f} M "
          f"flash data wait states ({100 * estimate.wait_cycles / estimate.cycles:.0f} %); flash "
          f"{deployment.firmware.flash_bytes:,} B, RAM {deployment.firmware.ram_bytes:,} B"
          + (f" ({len(placed)} tables, {ram:,} B, copied into RAM)" if budget is not None else "")
          + f"; outputs {'equal to' if exact else 'DIFFER from'} TFLM's")
    reads = sorted(profile.reads.values(), key=lambda r: -r.wait_cycles)
    print(f"  {'symbol':<30} {'bytes':>9} {'read/inference':>14} {'x':>6} {'est. wait cycles':>16}  steps")
    for entry in reads[:top]:
        steps = ",".join(str(s) for s in sorted(entry.steps)[:8]) + ("..." if len(entry.steps) > 8 else "")
        print(f"  {entry.name:<30} {entry.size:>9,} {entry.read_bytes:>14,.0f} {entry.reread:>6.1f} "
              f"{entry.wait_cycles:>16,.0f}  {steps}")
    rest = reads[top:]
    if rest:
        print(f"  {f'({len(rest)} more)':<30} {sum(r.size for r in rest):>9,} "
              f"{sum(r.read_bytes for r in rest):>14,.0f} {'':>6} {sum(r.wait_cycles for r in rest):>16,.0f}")
    return exact


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=SHARED / "models")
    parser.add_argument("--board", default="mps2_an386", choices=sorted(PUBLISHED_CORE))
    parser.add_argument("--only", default=",".join(MODELS))
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--weights-in-ram", metavar="BYTES|auto|published", help="copy the tables the estimate "
                        "picks into RAM within BYTES (K/M suffixes), auto (the board's free RAM) or published (the "
                        "published board's SRAM less the firmware's RAM)")
    parser.add_argument("--compact", action="store_true", help="only the compact weight layouts (no widening)")
    parser.add_argument("--portable", action="store_true", help="the portable kernels only (int8 weights as the "
                        "model has them: the DSP fully-connected variant reads them widened to int16)")
    args = parser.parse_args()
    core = PUBLISHED_CORE[args.board]
    print(f"ESTIMATED cycles; memory: {PUBLISHED_MEMORY[core][0]}-like (bench/published_cycles.py)")
    budget = args.weights_in_ram
    budget = parse_budget(budget) if budget not in (None, "published") else budget
    exact = [report(args.models / f"{name}.tflite", args.board, args.top, budget, args.compact, args.portable)
             for name in args.only.split(",") if name]
    return 0 if all(exact) else 1


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/flash_reads.py"))
