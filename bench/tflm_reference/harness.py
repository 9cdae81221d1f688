"""The TFLM side: generates bench_cases.inc (the tensors as C arrays, one namespace per case), compiles it with
harness_main.cc and the TFLM sources under --tflm-src for the board (arm-none-eabi-g++, -O2 as TFLM's Makefile
builds kernels), links it with the board port of firmware-gen, runs it under QEMU (-icount shift=0) and reads
back per case the instructions and an FNV-1a hash of the output."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen.link.qemu import start_qemu
from firmware_gen.target.boards import Board
from firmware_gen.target.cross_build import PORTS_DIR, _compile, port_sources
from firmware_gen.target.linker_script import render_linker_script
from tflm_reference.model import BenchModel, Case

HERE = Path(__file__).resolve().parent
C_TYPES = {"int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "float32": "float"}
CXX_FLAGS = ("-std=c++17", "-O2", "-fno-rtti", "-fno-exceptions", "-fno-threadsafe-statics",
             "-fno-unwind-tables", "-ffunction-sections", "-fdata-sections", "-DNDEBUG", "-DTF_LITE_STATIC_MEMORY",
             "-Wno-psabi",
             # the stored runtime_shape.h (another commit than common.h's) uses std::memcpy without <cstring>
             "-include", "cstring")
TFLM_SOURCES = ("tensorflow/lite/kernels/internal/common.cc",
                "tensorflow/lite/micro/kernels/activations_common.cc",
                "tensorflow/lite/micro/kernels/squared_difference.cc", "tensorflow/lite/micro/kernels/gather.cc",
                "tensorflow/lite/micro/kernels/mirror_pad.cc", "tensorflow/lite/micro/kernels/elementwise.cc",
                "tensorflow/lite/micro/kernels/elu.cc", "tensorflow/lite/micro/kernels/cast.cc",
                "tensorflow/lite/micro/kernels/pack.cc", "tensorflow/lite/micro/kernels/split.cc",
                "tensorflow/lite/micro/kernels/unpack.cc", "tensorflow/lite/micro/kernels/gather_nd.cc",
                "tensorflow/lite/micro/kernels/split_v.cc", "tensorflow/lite/micro/kernels/zeros_like.cc")
REFERENCE_HEADERS_FILE = HERE / "reference_headers.txt"


@dataclass
class TflmResult:
    instructions: int
    output_hash: int


def fnv1a(data: bytes) -> int:
    value = 2166136261
    for byte in data:
        value = ((value ^ byte) * 16777619) & 0xFFFFFFFF
    return value


def _array(name: str, dtype: str, values: np.ndarray | None, count: int) -> tuple[str, str]:
    """A tensor's C array: (its extern declaration, its definition). Every array, dims included, is a mutable
    global of external linkage, defined in a translation unit of its own: GCC must not see the shapes as constants
    and specialise a kernel for them, which TFLM (shapes read from tensors at run time) never gets."""
    declaration = f"extern {C_TYPES[dtype]} {name}[{count}];"
    if values is None:
        return declaration, f"alignas(4) {C_TYPES[dtype]} {name}[{count}];"
    # float32 values as exact hexadecimal literals (C++17)
    body = ", ".join(float(v).hex() if dtype == "float32" else str(int(v)) for v in values.ravel())
    return declaration, f"alignas(4) {C_TYPES[dtype]} {name}[{count}] = {{{body}}};"


def tensor_sources(model: BenchModel, inputs: list[np.ndarray]) -> tuple[str, str]:
    """(bench_tensors.h, bench_tensors.cc): every tensor the operators use, data t<index> and dims d<index>."""
    b = model.builder
    given = dict(zip(b.inputs, inputs, strict=True))
    used = sorted({t for op in b.operators for t in (*op.inputs, *op.outputs) if t >= 0})
    header, definitions = ["#include <cstdint>"], ['#include "bench_tensors.h"']
    for t in used:
        tensor = b.tensors[t]
        values = given.get(t)
        if tensor.data is not None:
            values = np.frombuffer(tensor.data, dtype=np.dtype(tensor.dtype).newbyteorder("<"))
        dims = tensor.shape or (1,)
        for declaration, definition in (_array(f"t{t}", tensor.dtype, values, int(np.prod(tensor.shape))),
                                        _array(f"d{t}", "int32", np.array(dims), len(dims))):
            header.append(declaration)
            definitions.append(definition)
    return "\n".join(header) + "\n", "\n".join(definitions) + "\n"


def case_source(n: int, case: Case) -> str:
    """case_<n>.cc: the case in its own translation unit, as each TFLM kernel's Eval is."""
    headers = REFERENCE_HEADERS_FILE.read_text().split()
    lines = [f'#include "{h}"' for h in headers] + ['#include "bench_case.h"', '#include "bench_tensors.h"',
                                                   f"namespace case{n} {{", case.state,
                                                   f"void setup() {{\n  {case.setup}\n}}",
                                                   f"void call() {{\n  {case.call}\n}}", f"}}  // namespace case{n}",
                                                   f"extern const BenchCase kCase{n} = {{case{n}::setup, "
                                                   f"case{n}::call, t{case.output}, sizeof(t{case.output})}};"]
    return "\n".join(lines) + "\n"


def cases_table(count: int) -> str:
    """bench_cases.inc, included by harness_main.cc: the list of the cases."""
    externs = [f"extern const BenchCase kCase{n};" for n in range(count)]
    entries = ", ".join(f"&kCase{n}" for n in range(count))
    return "\n".join(externs) + f"\nconst BenchCase* const kCases[] = {{{entries}}};\n"


def _run_tool(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed:\n{done.stderr[-6000:]}")


def _write_sources(model: BenchModel, inputs: list[np.ndarray], out: Path) -> list[Path]:
    """The generated C++ of the harness, written to out; returns the translation units."""
    header, definitions = tensor_sources(model, inputs)
    (out / "bench_tensors.h").write_text(header)
    (out / "bench_tensors.cc").write_text(definitions)
    (out / "bench_cases.inc").write_text(cases_table(len(model.cases)))
    units = [out / "bench_tensors.cc"]
    for n, case in enumerate(model.cases):
        units.append(out / f"case_{n}.cc")
        units[-1].write_text(case_source(n, case))
    return units


def build_harness(model: BenchModel, inputs: list[np.ndarray], tflm_src: Path, board: Board, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    units = _write_sources(model, inputs, out)
    objects = _compile(port_sources(board), [PORTS_DIR], board, out / "obj", [])
    includes = [f"-I{d}" for d in (out, HERE, HERE / "shim", tflm_src, tflm_src / "third_party" / "gemmlowp",
                                   PORTS_DIR)]
    cxx = ["arm-none-eabi-g++", *board.gcc_flags, *CXX_FLAGS, *includes]
    for source in (HERE / "harness_main.cc", *(tflm_src / s for s in TFLM_SOURCES), *units):
        objects.append(out / "obj" / (source.stem + ".o"))
        _run_tool([*cxx, "-c", str(source), "-o", str(objects[-1])])
    elf = out / "tflm_reference.elf"
    script = out / "tflm_reference.ld"
    script.write_text(render_linker_script(board))
    _run_tool(["arm-none-eabi-gcc", *board.gcc_flags, "--specs=nano.specs", "--specs=nosys.specs", "-nostartfiles",
               "-Wl,--gc-sections", f"-T{script}", *map(str, objects), "-lm", "-o", str(elf)])
    return elf


def run_harness(elf: Path, board: Board, count: int, timeout: float = 600.0) -> list[TflmResult]:
    """Each case's instructions (counter ticks times the board's instructions per tick) and output hash."""
    results: list[TflmResult] = []
    with start_qemu(board, elf, timeout) as session:
        deadline = time.monotonic() + timeout
        buffer = b""
        while b"done\n" not in buffer and time.monotonic() < deadline:
            buffer += session.link.read(session.link.in_waiting or 1)
    for line in buffer.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "case":
            ticks, digest = int(parts[2]), int(parts[3])
            results.append(TflmResult(round(ticks * board.instructions_per_tick), digest))
    if len(results) != count:
        raise RuntimeError(f"the TFLM harness reported {len(results)} of {count} cases: {buffer[-300:]!r}")
    return results
