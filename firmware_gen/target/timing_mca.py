"""Block costs on the out-of-order-issue and vector cores (Cortex-M7 dual issue, Cortex-M55/M85 MVE beats and the
overlap of the load/store, integer and multiply pipes) from LLVM's scheduling models, through llvm-mca.

Every block is one llvm-mca code region, all in one llvm-mca process; a block's cost is its steady-state cycles per
iteration (Total Cycles / ITERATIONS): what a block run in a loop costs, a little optimistic for a block run once
(its first issue's latency is not counted). Costs are cached on disk per core and block text. Instructions llvm-mca
cannot parse or time are skipped by it (-skip-unsupported-instructions=any) and cost nothing (none were met in the
anchors' and our firmware's kernels); a block llvm-mca reports nothing for costs one cycle per instruction.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from firmware_gen.errors import ToolchainError
from firmware_gen.target.disassembly import CORE_TRIPLES, Instruction, llvm_tool
from firmware_gen.target.object_cache import cache_dir

MCA_CORES = ("cortex-m7", "cortex-m55", "cortex-m85")
ITERATIONS = 100
# llvm-mca assumes 100 cycles for a call (BL, BLX) unless told: the call's taken branch is charged with the others.
CALL_LATENCY = 1
MODEL_VERSION = "2"  # in the cache key: a change of the options above changes every cost
# Taken-branch costs beyond llvm-mca's issue slot (which has no branch predictor model): the M7 predicts taken
# branches with its BTAC (about 1 cycle left), the M55 and M85 refill 2 cycles, except a low-overhead loop's
# LE/LETP after its first pass (the loop is cached: no refill).
TAKEN_PENALTY = {"cortex-m7": 1, "cortex-m55": 2, "cortex-m85": 1}
_REGION = re.compile(r"^\[\d+\] Code Region - (b\d+)$")
_TOTAL = re.compile(r"^Total Cycles:\s+(\d+)$")


def _key(core: str, instructions: Sequence[Instruction]) -> str:
    text = "\n".join(f"{i.mnemonic} {i.operands}" for i in instructions)
    return hashlib.sha256(f"{MODEL_VERSION}\n{core}\n{text}".encode()).hexdigest()[:24]


def _source(blocks: dict[str, Sequence[Instruction]]) -> str:
    lines = []
    for name, instructions in blocks.items():
        lines.append(f"# LLVM-MCA-BEGIN {name}")
        lines += [f"{i.mnemonic} {i.operands}".strip() for i in instructions]
        lines.append("# LLVM-MCA-END")
    return "\n".join(lines) + "\n"


def _run_mca(core: str, blocks: dict[str, Sequence[Instruction]]) -> dict[str, float]:
    command = [llvm_tool("llvm-mca"), f"-mtriple={CORE_TRIPLES[core]}", f"-mcpu={core}",
               f"-iterations={ITERATIONS}", "-skip-unsupported-instructions=any", f"-call-latency={CALL_LATENCY}",
               "-summary-view",
               "-instruction-info=false", "-resource-pressure=false"]
    done = subprocess.run(command, input=_source(blocks), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ToolchainError(f"llvm-mca failed for {core}: {done.stderr.strip()[:400]}")
    costs: dict[str, float] = {}
    region = None
    for line in done.stdout.splitlines():
        match = _REGION.match(line.strip())
        if match:
            region = match.group(1)
            continue
        match = _TOTAL.match(line.strip())
        if match and region is not None:
            costs[region] = int(match.group(1)) / ITERATIONS
            region = None
    if len(blocks) == 1 and not costs:  # a single region is printed without its header
        total = next((m for m in map(_TOTAL.match, (s.strip() for s in done.stdout.splitlines())) if m), None)
        if total:
            costs[next(iter(blocks))] = int(total.group(1)) / ITERATIONS
    return costs


def _cache_file(core: str) -> Path:
    return cache_dir("cycles") / f"mca-{core}.json"


def _load(core: str) -> dict[str, float]:
    with contextlib.suppress(OSError, ValueError):
        return json.loads(_cache_file(core).read_text())
    return {}


def _store(core: str, costs: dict[str, float]) -> None:
    path = cache_dir("cycles")
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True)
        merged = {**_load(core), **costs}
        handle, temporary = tempfile.mkstemp(dir=path, suffix=".tmp")
        with os.fdopen(handle, "w") as file:
            json.dump(merged, file)
        os.replace(temporary, _cache_file(core))


def block_cycles(core: str, blocks: Sequence[Sequence[Instruction]]) -> list[float]:
    """The steady-state cycles of each block (empty blocks cost 0)."""
    keys = [_key(core, block) for block in blocks]
    cached = _load(core)
    missing = {f"b{n}": block for n, (key, block) in enumerate(zip(keys, blocks, strict=True))
               if key not in cached and block}
    if missing:
        fresh = _run_mca(core, missing)
        new = {keys[int(name[1:])]: fresh.get(name, float(len(block))) for name, block in missing.items()}
        cached.update(new)
        _store(core, new)
    return [cached.get(key, 0.0) if block else 0.0 for key, block in zip(keys, blocks, strict=True)]
