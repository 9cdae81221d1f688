"""Many single-operator test models run as one firmware: the kernel variants' property tests on a QEMU board.

Building and booting a firmware costs seconds; a property test wants dozens of cases per operator. `merge_models`
puts every case's operators, tensors and weights side by side in one TFLite model (each case keeps its own
inputs and outputs, nothing is shared), so one build and one run check them all. `assert_batch_bit_exact` runs
that model on a board and compares each case's outputs with TFLM's running the same merged model, naming the
first case that differs. The host-to-firmware direction of an emulated UART carries 4-15 KiB/s (shared/PLATFORM.md),
so a batch's inputs of more than a few KiB go into the firmware's flash as a one-sample dataset image, the product's
path for `validate --dataset --board` (driver/dataset_deploy.py), and only the outputs travel back over the serial
link; the serial input path has tests of its own (test_qemu_run.py, test_serial_link.py, the shared models').
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.driver.dataset_deploy import run_dataset
from firmware_gen.driver.deploy import Deployment, prepare, run
from firmware_gen.errors import DoesNotFitError
from firmware_gen.frontend.ir import DType, Graph, Tensor
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.boards import Board


def _copy_tensor(builder: ModelBuilder, tensor: Tensor, prefix: str) -> int:
    q = tensor.quantization
    scale = (q.scales if q.per_channel else q.scale) if q else None
    zero_point = (q.zero_points if q.per_channel else q.zero_points[0]) if q else 0
    axis = q.axis if q else 0
    name = f"{prefix}{tensor.name}"
    if tensor.is_constant:
        return builder.constant(name, tensor.data, scale, zero_point, axis, int4=tensor.dtype is DType.INT4)
    return builder.tensor(name, tensor.shape, tensor.dtype.numpy_type.__name__, scale, zero_point, axis)


def _absorb(builder: ModelBuilder, graph: Graph, prefix: str) -> list[int]:
    """Copy the graph into the builder; the merged indices of its outputs."""
    index = {-1: -1}
    for tensor in graph.tensors:
        index[tensor.index] = _copy_tensor(builder, tensor, prefix)
    builder.inputs.extend(index[i] for i in graph.inputs)
    for op in graph.operators:
        builder.operator(op.opcode, [index[i] for i in op.inputs], [index[i] for i in op.outputs], dict(op.options))
    outputs = [index[i] for i in graph.outputs]
    builder.outputs.extend(outputs)
    return outputs


def merge_models(models: Sequence[bytes], name: str = "batch") -> tuple[bytes, list[int]]:
    """(one model holding every case, the number of outputs of each case, in order)."""
    builder = ModelBuilder(name)
    counts = [len(_absorb(builder, read_model(model, f"case{k}"), f"c{k}/")) for k, model in enumerate(models)]
    return builder.build(), counts


# One greedy planning pass, outputs still overlapping inputs where the kernels allow it: the default runs every
# algorithm up to the exact search, which on a merged model of dozens of cases takes tens of seconds and tests
# nothing the kernels care about.
BATCH_PLANNING = PlanningOptions(algorithm="greedy_by_conflicts")
# Inputs up to this many bytes are sent over the serial link (under a second); more go into the flash.
SERIAL_INPUT_BYTES = 4096


def run_batch(deployment: Deployment, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The outputs of one run of deployment's firmware on inputs: from a dataset image holding them when they are
    over SERIAL_INPUT_BYTES and the board's flash has room, else sent over the serial link."""
    if deployment.firmware.board.emulated and sum(a.nbytes for a in inputs) > SERIAL_INPUT_BYTES:
        try:
            return run_dataset(deployment, [inputs])[0]
        except DoesNotFitError:
            pass  # no room beside the model: the serial link it is
    return run(deployment, inputs).outputs


def assert_batch_bit_exact(models: Sequence[bytes], board: str | Board, cache_dir: Path, seed: int = 0,
                           expect_functions: Sequence[str] = (),
                           options: PlanningOptions = BATCH_PLANNING,
                           generation: GenerationOptions = GenerationOptions()) -> list[str]:
    """Runs all cases in one firmware on `board`; every output must equal TFLM's. Returns the kernel function of
    every step (so that a test can assert which variants ran); expect_functions: each must be among them."""
    merged, counts = merge_models(models)
    deployment = prepare(merged, "batch.tflite", board, out_dir=cache_dir, options=options, generation=generation)
    functions = [call.function for _, call in sorted(deployment.compiled.calls.items())]
    missing = [f for f in expect_functions if f not in functions]
    assert not missing, f"the batch never calls {missing}; it calls {sorted(set(functions))}"
    inputs = random_inputs(deployment.graph, seed)
    equal = outputs_equal_oracle(merged, inputs, run_batch(deployment, inputs), len(deployment.graph.tensors))
    first = 0
    for case, count in enumerate(counts):
        assert all(equal[first:first + count]), f"case {case} of {len(counts)} differs from TFLM on {board}"
        first += count
    return functions

