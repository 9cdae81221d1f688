"""`firmware-gen analyze`: per layer what runs and what it touches; the firmware's flash and RAM split; the fit.

The layer table comes from the compiled model (kernel calls, memory plan); the flash and RAM split from the ELF's
own section headers and symbol table (target/elf_image.py): every byte of flash is code, weights, quantization
parameters or runtime, and they add up to the sections that hold them.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from firmware_gen.abi import constant_symbol, pool_output_section
from firmware_gen.driver.compiler import CompiledModel
from firmware_gen.ops import macs
from firmware_gen.target.cross_build import FirmwareBuild
from firmware_gen.target.elf_image import ElfImage, read_elf

FLASH_SECTIONS = (".text", ".ARM.exidx", ".rodata", ".data")  # .data: its initial values, copied from flash
WEIGHT_TABLES = ("weights", "taps", "packed")  # step tables that are weights repacked by a kernel variant
USER_IO_SYMBOL = "fg_user_io"  # the profiling firmware's buffers of a --no-io-in-pool model


@dataclass
class LayerAnalysis:
    index: int
    operator: str
    function: str  # the compiled call; "" for a view
    isa: str
    output_shape: list[int]
    macs: int
    weight_bytes: int
    read_bytes: int  # activations read
    written_bytes: int
    buffers: list[dict]  # {tensor, pool, offset, bytes}; pool None: the caller's buffer


@dataclass
class MemorySplit:
    flash: dict[str, int]  # code, weights, quantization, runtime
    ram: dict[str, int]  # pool, io, stack, runtime_data
    regions: list[dict]  # name, size, used, free, fits
    stack: dict | None = None  # the worst case from the call graph: reserved, margin, thread/handler/model paths

    @property
    def flash_bytes(self) -> int:
        return sum(self.flash.values())

    @property
    def ram_bytes(self) -> int:
        return sum(self.ram.values())

    def to_json(self) -> dict:
        return {**asdict(self), "flash_bytes": self.flash_bytes, "ram_bytes": self.ram_bytes}


@dataclass
class Analysis:
    model: str
    board: str | None
    layers: list[LayerAnalysis]
    pool_bytes: int
    memory: MemorySplit | None = None
    totals: dict[str, int] = field(default_factory=dict)
    elf: str | None = None
    patch_stage: dict | None = None  # driver/patch_choice.py StagePlan.to_json: the prefix run patch by patch

    def to_json(self) -> dict:
        return {**asdict(self), "memory": self.memory.to_json() if self.memory else None}


def _buffers(compiled: CompiledModel, tensors: list[int]) -> list[dict]:
    rows = []
    for index in tensors:
        if index < 0 or compiled.graph.tensors[index].is_constant:
            continue
        tensor = compiled.graph.tensors[index]
        if compiled.plan.is_outside(index):
            rows.append({"tensor": index, "pool": None, "offset": None, "bytes": tensor.nbytes})
        else:
            buffer = compiled.plan.buffer_of(index)
            rows.append({"tensor": index, "pool": buffer.pool or "default", "offset": buffer.offset,
                         "bytes": buffer.size})
    return rows


def _weight_tables(compiled: CompiledModel) -> dict[int, dict[str, int]]:
    """step -> {table symbol: bytes} for the tables that hold weights."""
    return {step.index: {step.tables[t.suffix]: t.values.nbytes for t in step.call.tables
                         if any(word in t.suffix for word in WEIGHT_TABLES)}
            for step in compiled.steps if step.call}


def analyze_layers(compiled: CompiledModel) -> list[LayerAnalysis]:
    graph, op_macs, tables = compiled.graph, macs(compiled.graph), _weight_tables(compiled)
    layers = []
    for step in compiled.steps:
        op, call = step.op, step.call
        constants = {ref.index for ref in step.inputs if ref.index >= 0 and graph.tensors[ref.index].is_constant}
        activations = [i for i in op.inputs if i >= 0 and not graph.tensors[i].is_constant]
        layers.append(LayerAnalysis(
            index=op.index, operator=op.opcode, function=call.function if call else "",
            isa=call.isa if call else "", output_shape=list(graph.tensors[op.outputs[0]].shape),
            macs=op_macs[op.index],
            weight_bytes=sum(graph.tensors[i].nbytes for i in constants) + sum(tables.get(step.index, {}).values()),
            read_bytes=sum(graph.tensors[i].nbytes for i in activations),
            written_bytes=sum(graph.tensors[i].nbytes for i in op.outputs),
            buffers=_buffers(compiled, [*activations, *op.outputs])))
    return layers


def _flash_split(image: ElfImage, compiled: CompiledModel) -> dict[str, int]:
    manifest = compiled.manifest
    prefix = manifest.prefix if manifest else "fg"
    constant = re.compile(re.escape(constant_symbol(0, prefix)).removesuffix("0") + r"\d+")
    weight_tables = {name for per_step in _weight_tables(compiled).values() for name in per_step}
    params = {step.params_name for step in compiled.steps if step.call}
    params |= {name for step in compiled.steps for name in step.tables.values()} - weight_tables
    model_functions = set(manifest.symbols.values()) if manifest else set()
    split = {"code": 0, "weights": 0, "quantization": 0}
    for symbol in image.symbols:
        if symbol.section not in FLASH_SECTIONS or symbol.section == ".data":
            continue
        if constant.fullmatch(symbol.name) or symbol.name in weight_tables:
            split["weights"] += symbol.size
        elif symbol.name in params:
            split["quantization"] += symbol.size
        elif symbol.name in model_functions and symbol.kind == "FUNC":
            split["code"] += symbol.size
    total = sum(image.size(name) for name in FLASH_SECTIONS)
    split["runtime"] = total - sum(split.values())  # kernels, ports, protocol, libc, alignment
    return split


def memory_split(firmware: FirmwareBuild, compiled: CompiledModel) -> MemorySplit:
    image = read_elf(firmware.elf)
    pools = [pool_output_section(name) for name in ("", *(compiled.manifest.named_pools if compiled.manifest
                                                           else []))]
    io = sum(s.size for s in image.symbols if s.name == USER_IO_SYMBOL)
    ram = {"pool": sum(image.size(name) for name in pools), "io": io, "stack": image.size(".stack"),
           "runtime_data": image.size(".data") + image.size(".bss") - io}
    regions = [{"name": r.name, "size": r.size, "used": r.used, "free": r.size - r.used, "fits": r.fits}
               for r in firmware.regions]
    return MemorySplit(_flash_split(image, compiled), ram, regions, _stack(firmware))


def _stack(firmware: FirmwareBuild) -> dict | None:
    bound = firmware.stack
    if bound is None:
        return None
    return {"worst_case_bytes": bound.thread.bytes, "reserved_bytes": firmware.board.stack_bytes,
            "margin_bytes": firmware.board.stack_bytes - bound.thread.bytes, **bound.to_json()}


def analyze(compiled: CompiledModel, source: str, firmware: FirmwareBuild | None = None) -> Analysis:
    layers = analyze_layers(compiled)
    totals = {"macs": sum(layer.macs for layer in layers), "weight_bytes": sum(layer.weight_bytes for layer in layers),
              "steps": len(layers)}
    return Analysis(source, firmware.board.name if firmware else None, layers, compiled.plan.pool_bytes,
                    memory_split(firmware, compiled) if firmware else None, totals,
                    str(firmware.elf) if firmware else None,
                    compiled.stage.to_json(compiled.graph) if compiled.stage else None)
