"""Single-operator checks against TFLM, without the end-to-end pipeline.

A one-operator .tflite is written with ModelBuilder; TFLM runs it (in a child process); our side imports the
same bytes, checks and lowers the operator with its OpKernel, and calls the C kernel compiled into a shared
library (with UBSan) through ctypes, its params struct built from the KernelCall.
"""

from __future__ import annotations

import ctypes
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from firmware_gen.codegen import RUNTIME_DIR
from firmware_gen.importer import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.ops import REGISTRY
from firmware_gen.oracle import run_tflm

C_FLAGS = ["-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
           "-fsanitize=undefined", "-fno-sanitize-recover=all"]


def build_kernel_library(kernel_files: Sequence[str], out_dir: Path) -> ctypes.CDLL:
    """runtime_c/kernels/<name>.c for each name, as one shared library."""
    library = out_dir / "libfg_kernels.so"
    sources = [str(RUNTIME_DIR / "kernels" / f"{name}.c") for name in kernel_files]
    subprocess.run(["gcc", *C_FLAGS, f"-I{RUNTIME_DIR / 'include'}", *sources, "-o", str(library)],
                   check=True, capture_output=True, text=True)
    return ctypes.CDLL(str(library))


def single_op_model(opcode: str, shape: Sequence[int], input_scale: float, input_zero_point: int,
                    output_scale: float = 1.0 / 256.0, output_zero_point: int = -128,
                    options: dict | None = None) -> bytes:
    builder = ModelBuilder(opcode.lower())
    x = builder.input("x", shape, "int8", scale=input_scale, zero_point=input_zero_point)
    y = builder.tensor("y", shape, "int8", scale=output_scale, zero_point=output_zero_point)
    builder.operator(opcode, inputs=[x], outputs=[y], options=options or {})
    builder.output(y)
    return builder.build()


def tflm_output(model: bytes, x: np.ndarray) -> np.ndarray:
    graph = read_model(model)
    return run_tflm(model, [x], len(graph.tensors)).outputs[0]


def our_output(model: bytes, x: np.ndarray, library: ctypes.CDLL) -> np.ndarray:
    """The model's single int8 operator lowered by its OpKernel and run by the C kernel."""
    graph = read_model(model)
    op = graph.operators[0]
    kernel = REGISTRY[op.opcode]
    kernel.check(graph, op)
    call = kernel.lower(graph, op)
    fields = [(name, ctypes.c_int32) for name in call.params]
    params_type = type(call.params_type, (ctypes.Structure,), {"_fields_": fields})
    params = params_type(*[int(v) for v in call.params.values()])
    source = np.ascontiguousarray(x, dtype=np.int8)
    result = np.zeros(graph.tensors[op.outputs[0]].shape, dtype=np.int8)
    function = getattr(library, call.function)
    function.restype = None
    function(ctypes.byref(params), source.ctypes.data_as(ctypes.c_void_p), result.ctypes.data_as(ctypes.c_void_p))
    return result


def assert_bit_exact(model: bytes, x: np.ndarray, library: ctypes.CDLL) -> None:
    expected = np.asarray(tflm_output(model, x)).reshape(x.shape)
    actual = our_output(model, x, library)
    differ = np.nonzero(actual != expected)
    assert not differ[0].size, (f"{differ[0].size} of {x.size} elements differ from TFLM, first at "
                                f"{tuple(int(d[0]) for d in differ)}: input {x[differ][0]}, "
                                f"TFLM {expected[differ][0]}, ours {actual[differ][0]}")
