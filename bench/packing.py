"""The price of the packed interface: flash bytes and guest instructions per inference, unpacked vs packed, for
each model x board (QEMU -icount shift=0: deterministic instruction counts, not timings). Each packed run's
outputs must equal the unpacked run's, and those TFLM's. Flash is the whole profiling firmware; a packed build
also carries the step session of `validate --layers`, whose bytes are shown apart ("session"): "packing +"
is the rest of the difference, the price of the calling convention itself.

    python bench/packing.py [--models DIR] [--only NAME,...] [--boards qemu_cortex_m3,mps2_an386]

Target of the packed-call issue: packed costs at most 3 % more instructions than unpacked on vww_96_int8.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen.abi import CALLING_CONVENTIONS
from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.cli.stop_signals import run_script
from firmware_gen.driver.deploy import prepare, run
from firmware_gen.errors import DoesNotFitError
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.target.cross_build import build_firmware

DEFAULT_MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
INSTRUCTION_TARGET = {"vww_96_int8": 3.0}  # max % more instructions packed


@dataclass
class Measurement:
    flash: int | None = None  # None: does not fit
    flash_without_session: int | None = None  # packed builds: without the step session (FG_NO_STEP_SESSION)
    instructions: int | None = None
    outputs: list[np.ndarray] | None = None
    note: str = ""


def measure(data: bytes, path: Path, board: str, interface: str, inputs: list[np.ndarray] | None) -> Measurement:
    try:
        deployment = prepare(data, str(path), board, interface=interface)
    except DoesNotFitError as error:
        return Measurement(note=str(error).split(": ", 1)[-1])
    if inputs is None:
        inputs = random_inputs(deployment.graph)
    result = run(deployment, inputs)
    without_session = None
    if interface == "packed":
        firmware = deployment.firmware
        without_session = build_firmware(firmware.model_dir, board, firmware.elf.parent.parent / "no-session",
                                         extra_cflags=["-DFG_NO_STEP_SESSION"]).flash_bytes
    return Measurement(deployment.firmware.flash_bytes, without_session, result.instructions, result.outputs)


def percent(packed: int | None, unpacked: int | None) -> str:
    if packed is None or unpacked is None:
        return "-"
    return f"{100 * (packed - unpacked) / unpacked:+.3f}%"


def number(value: int | None) -> str:
    return "does not fit" if value is None else f"{value:,}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--only", help="comma-separated model names (file stems)")
    parser.add_argument("--boards", default="qemu_cortex_m3,mps2_an386")
    args = parser.parse_args()
    models = sorted(args.models.glob("*.tflite")) if args.models.is_dir() else []
    if args.only:
        models = [m for m in models if m.stem in args.only.split(",")]
    if not models:
        parser.error(f"no .tflite models in {args.models}")
    header = (f"{'model':<24} {'board':<15} {'flash unpacked':>14} {'flash packed':>13} {'session':>8} "
              f"{'packing +':>16} "
              f"{'instr unpacked':>15} {'instr packed':>15} {'instr +':>9} {'per step':>8}  outputs")
    print(header)
    print("-" * len(header))
    failures = 0
    for path in models:
        data = path.read_bytes()
        for board in args.boards.split(","):
            graph = read_model(data, str(path))
            inputs = random_inputs(graph)
            unpacked, packed = (measure(data, path, board, interface, inputs) for interface in CALLING_CONVENTIONS)
            if unpacked.outputs is None or packed.outputs is None:
                verdict = "; ".join(f"{name}: {m.note}" for name, m in zip(CALLING_CONVENTIONS, (unpacked, packed),
                                                                          strict=True) if m.note)
            else:
                same = all(np.array_equal(a, b) for a, b in zip(unpacked.outputs, packed.outputs, strict=True))
                exact = same and all(outputs_equal_oracle(data, inputs, unpacked.outputs, len(graph.tensors)))
                verdict = "equal, = TFLM" if exact else "DIFFER"
                failures += not exact
            extra = percent(packed.instructions, unpacked.instructions)
            per_step = ("-" if packed.instructions is None or unpacked.instructions is None else
                        f"{(packed.instructions - unpacked.instructions) / len(graph.operators):,.0f}")
            session = packing = "-"
            if packed.flash is not None and unpacked.flash is not None:
                session = f"{packed.flash - packed.flash_without_session:,}"
                extra_flash = packed.flash_without_session - unpacked.flash
                packing = f"{extra_flash:+,} {percent(packed.flash_without_session, unpacked.flash)}"
            limit = INSTRUCTION_TARGET.get(path.stem)
            if limit is not None and packed.instructions and unpacked.instructions:
                over = 100 * (packed.instructions - unpacked.instructions) / unpacked.instructions > limit
                failures += over
                verdict += f"; target <= {limit:g}%: {'MISSED' if over else 'met'}"
            print(f"{path.stem:<24} {board:<15} {number(unpacked.flash):>14} {number(packed.flash):>13} "
                  f"{session:>8} {packing:>16} {number(unpacked.instructions):>15} "
                  f"{number(packed.instructions):>15} {extra:>9} {per_step:>8}  {verdict}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run_script(main, "bench/packing.py"))
