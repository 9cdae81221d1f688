"""Speed per shared model x QEMU board: our instructions per inference against TFLM + CMSIS-NN (the anchors of
../shared/ANCHORS.md, same QEMU, same gcc), the ratio, the targets (issue 14's; 0.40x the anchor on the M33 and the
Armv6-M class), instructions per MAC, flash bytes, the split by operator type, and whether the outputs equal TFLM's
(QEMU -icount shift=0: exact counts, not timings). The Armv6-M class runs as mps2_an385_armv6m: code built for the
Cortex-M0+ executed by QEMU's Cortex-M3 (Armv7-M executes every Armv6-M instruction), against the anchors' Armv6-M
build run the same way.

    python bench/speed.py [--shared DIR] [--models DIR] [--boards qemu_cortex_m3,mps2_an385,...]
                          [--only vww_96_int8,...] [--save after.json] [--compare before.json] [--cycles]

--save writes the rows as JSON; --compare adds the instructions of an earlier --save and the speed-up.
--cycles (boards mps2_an386, mps2_an500, mps2_an521, mps3_an547): a second table of ESTIMATED cycles (QEMU's execution
trace on the core's timing model, docs/cycle_model.md), ours and the anchor image's, with the memory of the board the
field publishes on, beside the best published figure for that core and issue 23's target (bench/published_cycles.py);
our firmware built again for that memory (the variants that weigh flash reads choose for it), its exact instructions
in that table; where that flash charges data wait states (M4, M33), built once more with the tables the estimate
picks copied into the part's SRAM (+SRAM; driver/ram_weights.py), as issue 23 allows: the target is met by the faster.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.model_summary import summarize
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.driver.ram_weights import prepare_with_ram_weights, remember_profile
from firmware_gen.errors import DoesNotFitError
from firmware_gen.link.flash_profile import FlashProfile, flash_profile
from firmware_gen.target.boards import Board, list_boards

sys.path.insert(0, str(Path(__file__).resolve().parent))
from published_cycles import (  # noqa: E402
    BEST,
    OWN_CORE_TARGET,
    PUBLISHED_CORE,
    PUBLISHED_SRAM,
    SAME_KERNELS,
    TARGET_CYCLES,
    anchor_estimate,
    published_board,
    published_memory,
)

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
DEFAULT_BOARDS = "qemu_cortex_m3,mps2_an385,mps2_an386,mps2_an500,mps2_an521,mps3_an547,mps2_an385_armv6m"
# Which column of ANCHORS.md's TFLM + CMSIS-NN table each board is measured against.
ANCHOR_COLUMN = {"qemu_cortex_m3": "M3 CMSIS-NN", "mps2_an385": "M3 CMSIS-NN", "mps2_an386": "M4 CMSIS-NN",
                 "mps2_an500": "M7 CMSIS-NN", "mps2_an521": "M33 CMSIS-NN", "mps3_an547": "M55 CMSIS-NN (MVE)",
                 "mps2_an385_armv6m": "M0+ CMSIS-NN", "microbit": "M0+ CMSIS-NN"}
# Boards whose target is a fraction of the anchor (issue 22) rather than issue 14's figures. The M33 anchors ran on
# mps2-an505, whose M33 executes the same instructions as an521's (an instruction count does not depend on the machine).
TARGET_RATIO = {"mps2_an521": 0.40, "mps2_an385_armv6m": 0.40, "microbit": 0.40}
# Printed under the table when these boards are measured.
BOARD_NOTES = {"mps2_an385_armv6m": "mps2_an385_armv6m: an M3 (QEMU mps2-an385) executes the Armv6-M code, as it "
                                    "executes the anchor's Armv6-M build"}
# Issue 14's targets, instructions per inference: (M3, M4, M7, M55).
TARGETS = {"vww_96_int8": (16.0e6, 10.8e6, 10.8e6, 3.6e6), "person_detect": (15.2e6, 10.3e6, 10.2e6, 3.6e6),
           "kws_ref_model": (5.3e6, 3.5e6, 3.4e6, 1.0e6), "pretrainedResnet_quant": (20.9e6, 13.4e6, 13.5e6, 2.7e6),
           "ad01_int8": (0.48e6, 0.26e6, 0.26e6, 0.083e6)}
TARGET_COLUMN = {"qemu_cortex_m3": 0, "mps2_an385": 0, "mps2_an386": 1, "mps2_an500": 2, "mps3_an547": 3}
OP_TYPES = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


def read_anchors(path: Path) -> dict[tuple[str, str], int]:
    """(model, column) -> instructions, from the first table of ANCHORS.md (empty when the file is absent)."""
    if not path.is_file():
        return {}
    rows = [line.strip().strip("|").split("|") for line in path.read_text().splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0]]
    anchors = {}
    for cells in rows[2:]:
        cells = [cell.strip() for cell in cells]
        if len(cells) != len(header) or not re.fullmatch(r"[\d,]+", cells[1]):
            break  # the end of the first table
        anchors.update({(cells[0], column): int(value.replace(",", ""))
                        for column, value in zip(header[2:], cells[2:], strict=True)})
    return anchors


def _estimate(deployment, inputs: list, memory, core: str, data: bytes,
              also: str | None = None) -> tuple[FlashProfile, int, bool, float | None]:
    """(the profile: ESTIMATED cycles sampled per step, exact instructions, outputs equal to TFLM's, the same trace's
    estimate on core `also`) of one build."""
    result = run(deployment, inputs, cycles=True)
    profile = flash_profile(deployment.firmware, inputs, memory, core, counts=result.trace)
    other = flash_profile(deployment.firmware, inputs, memory, also, counts=result.trace).estimate if also else None
    exact = all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))
    return profile, result.instructions, exact, other.cycles if other else None


def measure_cycles(data: bytes, path: Path, board: Board, inputs: list) -> dict:
    """Our estimated cycles and the anchor image's, on the published core's timing and memory: our firmware built for
    the published board's memory (published_board: the variants that weigh flash reads choose for it), its exact
    instructions and outputs checked again; then, where that memory charges data wait states, built again with the
    tables the estimate picks copied into the published part's SRAM (what the firmware leaves of PUBLISHED_SRAM)."""
    core = PUBLISHED_CORE[board.name]
    timed = published_board(board, core)
    memory = published_memory(board, core)
    deployment = prepare(data, str(path), timed)
    own_core = OWN_CORE_TARGET.get(board.name, (None,))[0]
    profile, instructions, exact, own_estimate = _estimate(deployment, inputs, memory, core, data, own_core)
    cycles = profile.estimate.cycles
    anchors = anchor_estimate(board, path.stem, (core, own_core) if own_core else (core,), memory) or {}
    anchor = anchors.get(core)
    row = {"timing_core": core, "memory": memory.description, "est_cycles": cycles,
           "cycles_build_instructions": instructions, "cycles_build_bit_exact": exact,
           "anchor_instructions": anchor[0] if anchor else None, "anchor_est_cycles": anchor[1] if anchor else None,
           "best_published": BEST[core].get(path.stem), "target_cycles": TARGET_CYCLES[core].get(path.stem),
           "same_kernels_published": SAME_KERNELS.get(core, {}).get(path.stem)}
    if own_core:  # the same trace on the board's own core
        row.update({"own_core": own_core, "own_core_est_cycles": own_estimate,
                    "own_core_anchor_est_cycles": anchors[own_core][1] if own_core in anchors else None})
    if memory.data_waits:
        budget = max(0, PUBLISHED_SRAM[core] - deployment.firmware.ram_bytes)
        remember_profile(deployment, memory, core, profile)  # the same build's tables: not profiled again
        in_ram, placed = prepare_with_ram_weights(data, str(path), timed, budget, memory=memory, core=core)
        sram_profile, instructions, exact, _ = _estimate(in_ram, inputs, memory, core, data)
        row.update({"est_cycles_sram": sram_profile.estimate.cycles, "sram_build_instructions": instructions,
                    "sram_build_bit_exact": exact, "sram_tables": len(placed),
                    "sram_table_bytes": sum(w.bytes for w in placed), "sram_ram_bytes": in_ram.firmware.ram_bytes})
    return row


def measure(path: Path, board: str, cycles: bool = False) -> dict:
    """One row: instructions (total and by operator type), MACs, flash bytes and the oracle's verdict; with cycles,
    the estimates of measure_cycles."""
    data = path.read_bytes()
    row: dict = {"model": path.stem, "board": board}
    try:
        deployment = prepare(data, str(path), board)
    except DoesNotFitError as error:
        return {**row, "error": f"does not fit: {str(error).splitlines()[0]}"}
    inputs = random_inputs(deployment.graph)
    result = run(deployment, inputs)
    if cycles and board in PUBLISHED_CORE:
        row.update(measure_cycles(data, path, deployment.firmware.board, inputs))
    split = dict.fromkeys((*OP_TYPES, "other"), 0)
    for op, count in zip(deployment.graph.operators, result.step_instructions or [], strict=True):
        split[op.opcode if op.opcode in OP_TYPES else "other"] += count
    return {**row, "instructions": result.instructions, "macs": summarize(deployment.graph).macs, "split": split,
            "flash_bytes": deployment.firmware.flash_bytes,
            "bit_exact": all(outputs_equal_oracle(data, inputs, result.outputs, len(deployment.graph.tensors)))}


def _millions(value: float | None) -> str:
    return f"{value / 1e6:.2f}" if value else "-"


def format_row(row: dict, anchors: dict, before: dict | None) -> str:
    head = f"{row['model']:<23} {row['board']:<17}"
    if "error" in row:
        return f"{head} {row['error']}"
    ours = row["instructions"]
    anchor = anchors.get((row["model"], ANCHOR_COLUMN.get(row["board"], "")))
    target = TARGETS.get(row["model"], (None,) * 4)[TARGET_COLUMN.get(row["board"], 0)]
    if row["board"] in TARGET_RATIO:
        target = anchor * TARGET_RATIO[row["board"]] if anchor else None
    ratio = f"{ours / anchor:.2f}x" if anchor else "-"
    met = "" if target is None else ("met" if ours <= target else "NOT met")
    split = " ".join(f"{_millions(row['split'][k]):>6}" for k in (*OP_TYPES, "other"))
    line = (f"{head} {_millions(ours):>7} {_millions(anchor):>7} {ratio:>6} {_millions(target):>7} {met:<7} "
            f"{ours / max(row['macs'], 1):>6.2f} {row['flash_bytes']:>9,} {split}  "
            f"{'equal' if row['bit_exact'] else 'DIFFERS'}")
    if before and "instructions" in before:
        line += f"  {_millions(before['instructions']):>7} {before['instructions'] / ours:>5.2f}x"
    return line


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


CYCLES_HEADER = (f"{'model':<23} {'board':<11} {'timing':<10} {'instr ours':>10} {'anchor':>7} {'ratio':>6} "
                 f"{'est.cyc ours':>12} {'anchor':>7} {'ratio':>6} {'+SRAM':>6} {'best pub':>8} {'ours/best':>9} "
                 f"{'target':>6} {'':<7} {'anchor/same-kernels pub':>23}")


def format_cycles_row(row: dict) -> str:
    """Millions; instructions exact, cycles ESTIMATED. +SRAM: with the hot tables in the part's SRAM (where its flash
    charges data wait states); ours/best and the target take the faster of the two builds."""
    if "est_cycles" not in row:
        return ""
    ours, anchor = row["est_cycles"], row["anchor_est_cycles"]
    fastest = min(ours, row.get("est_cycles_sram", ours))
    target = row.get("target_cycles")
    met = "" if target is None else ("met" if fastest <= target else "NOT met")
    same = row["same_kernels_published"]
    exact = row["cycles_build_bit_exact"] and row.get("sram_build_bit_exact", True)
    return (f"{row['model']:<23} {row['board']:<11} {row['timing_core'].removeprefix('cortex-'):<10} "
            f"{_millions(row['cycles_build_instructions']):>10} {_millions(row['anchor_instructions']):>7} "
            f"{_ratio(row['cycles_build_instructions'], row['anchor_instructions']):>6} {_millions(ours):>12} "
            f"{_millions(anchor):>7} {_ratio(ours, anchor):>6} {_millions(row.get('est_cycles_sram')):>6} "
            f"{_millions(row['best_published']):>8} {_ratio(fastest, row['best_published']):>9} "
            f"{_millions(target):>6} {met:<7} "
            f"{_millions(anchor) + ' / ' + _millions(same) + ' = ' + _ratio(anchor, same) if same else '-':>23}"
            + ("" if exact else "  outputs DIFFER from TFLM's"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (models/, ANCHORS.md)")
    parser.add_argument("--models", type=Path, help="default: SHARED/models")
    parser.add_argument("--boards", default=DEFAULT_BOARDS)
    parser.add_argument("--only", default="", help="comma-separated model names (file stems) to keep")
    parser.add_argument("--save", type=Path, help="write the rows to this JSON file")
    parser.add_argument("--compare", type=Path, help="an earlier --save to compare against")
    parser.add_argument("--cycles", action="store_true", help="also estimate cycles, ours and the anchors'")
    args = parser.parse_args()
    boards = [b for b in args.boards.split(",") if b]
    unknown = sorted(set(boards) - set(list_boards()))
    if unknown:
        parser.error(f"unknown boards {unknown}; known: {list_boards()}")
    args.models = args.models or args.shared / "models"
    if not args.models.is_dir():
        print(f"no models folder {args.models}", file=sys.stderr)
        return 2
    only = {name for name in args.only.split(",") if name}
    models = [p for p in sorted(args.models.glob("*.tflite")) if not only or p.stem in only]
    anchors = read_anchors(args.shared / "ANCHORS.md")
    earlier = {(r["model"], r["board"]): r for r in json.loads(args.compare.read_text())} if args.compare else {}
    header = (f"{'model':<23} {'board':<17} {'ours M':>7} {'anchor':>7} {'ratio':>6} {'target':>7} {'':<7} "
              f"{'i/MAC':>6} {'flash B':>9} {'conv':>6} {'dwconv':>6} {'fc':>6} {'other':>6}  TFLM")
    if earlier:
        header += f"  {'before':>7} speedup"
    print(header)
    print("-" * len(header))
    rows = []
    for path in models:
        for board in boards:
            rows.append(measure(path, board, args.cycles))
            print(format_row(rows[-1], anchors, earlier.get((path.stem, board))), flush=True)
    for board in boards:
        if board in BOARD_NOTES:
            print(BOARD_NOTES[board])
    if args.cycles:
        print("\nESTIMATED cycles (M = millions; instructions exact)")
        print(CYCLES_HEADER)
        print("-" * len(CYCLES_HEADER))
        for row in rows:
            if "est_cycles" in row:
                print(format_cycles_row(row))
        for core, memory in sorted({(r["timing_core"], r["memory"]) for r in rows if "memory" in r}):
            print(f"memory assumed for {core}: {memory}")
        for row in rows:
            if row.get("own_core_anchor_est_cycles"):
                target = OWN_CORE_TARGET[row["board"]][1]
                ratio = row["own_core_est_cycles"] / row["own_core_anchor_est_cycles"]
                print(f"{row['own_core']} timing (the board's own core) {row['model']} on {row['board']}: ESTIMATED "
                      f"{_millions(row['own_core_est_cycles'])} M against the anchor's "
                      f"{_millions(row['own_core_anchor_est_cycles'])} M = {ratio:.3f}x (target <= {target:.2f}x: "
                      f"{'met' if ratio <= target else 'NOT met'})")
        for row in rows:
            if "est_cycles_sram" in row:
                sram = PUBLISHED_SRAM[row["timing_core"]]
                print(f"+SRAM {row['model']} on {row['board']}: {row['sram_tables']} tables, "
                      f"{row['sram_table_bytes']:,} B copied into SRAM (firmware RAM {row['sram_ram_bytes']:,} B of "
                      f"the part's {sram:,} B), {_millions(row['sram_build_instructions'])} M instructions")
    if args.save:
        args.save.write_text(json.dumps(rows, indent=1))
    return 1 if any(r.get(key) is False for r in rows
                    for key in ("bit_exact", "cycles_build_bit_exact", "sram_build_bit_exact")) else 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/speed.py"))
