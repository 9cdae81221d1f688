"""The packed interface, and the lesson of TVM issue 8062 / PR 8096: plan on raw buffers, then legalize.

TVM's AOT executor once planned memory after wrapping calls into packed form; the planner saw the argument
structs, whose lifetime is one call, instead of the buffers behind them, and reused memory that was still live.
Here the planner's input type has no notion of an interface, and these tests hold that in place.
"""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
from pathlib import Path

import pytest
from test_codegen import add_reshape_softmax

from firmware_gen.backend.packed import pack
from firmware_gen.check.host_validation import validate_model
from firmware_gen.driver.compiler import compile_graph, generate, overlap_allowances
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link.step_session import refused_call_message
from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS
from firmware_gen.planner import MemoryPlan, PlannedBuffer, check_plan, plan_graph
from firmware_gen.planner.buffers import BufferInfo
from firmware_gen.planner.greedy_by_size import plan as greedy_by_size
from firmware_gen.target.host_build import WARNINGS, c_sources, host_compiler

from conftest import SHARED_MODEL_NAMES, shared_model

SYNTHETIC = sorted(SYNTHETIC_MODELS)


def graphs():
    for name in SYNTHETIC:
        yield name, read_model(SYNTHETIC_MODELS[name](), name)


@pytest.mark.parametrize("name", SYNTHETIC + SHARED_MODEL_NAMES)
def test_plan_is_identical_under_both_interfaces(name: str) -> None:
    if name in SYNTHETIC_MODELS:
        graph = read_model(SYNTHETIC_MODELS[name](), name)
    else:
        graph = read_model(shared_model(name).read_bytes(), name)
    unpacked, packed = compile_graph(graph, "unpacked"), compile_graph(graph, "packed")
    assert packed.plan.to_json() == unpacked.plan.to_json()
    graph = packed.graph  # as planned: constants and PADs folded (ops/constant_folding.py, ops/pad_folding.py)
    check_plan(packed.plan, graph, overlap_allowances(graph))
    # Every graph output is a buffer of exactly its own size, live to the end: nothing reuses it.
    last_step = len(graph.operators) - 1
    for index in graph.outputs:
        buffer = next(b for b in packed.plan.buffers if index in b.tensors)
        assert buffer.size == graph.tensors[index].nbytes
        assert buffer.last_op == last_step


def test_planner_input_cannot_carry_packed_structs() -> None:
    assert [f.name for f in dataclasses.fields(BufferInfo)] == ["id", "size", "alignment", "first", "last"]
    assert "interface" not in inspect.signature(plan_graph).parameters


def test_planning_the_descriptors_instead_of_the_buffers_is_caught() -> None:
    """What TVM's planner effectively did: a tensor's storage counted as live only while the call that
    receives its descriptor runs. The checker must refuse the result."""
    graph = read_model(SYNTHETIC_MODELS["tiny_cnn"](), "tiny_cnn")
    per_call = [BufferInfo((op.index, t), graph.tensors[t].nbytes, 16, op.index, op.index)
                for op in graph.operators for t in (*op.inputs, *op.outputs)
                if t >= 0 and not graph.tensors[t].is_constant]
    offsets = greedy_by_size(per_call)
    first_use = {}
    for info in per_call:
        first_use.setdefault(info.id[1], info)
    buffers = [PlannedBuffer((t,), offsets[info.id], info.size, info.first, info.last)
               for t, info in first_use.items()]
    buggy = MemoryPlan(pool_bytes=max(b.offset + b.size for b in buffers), lower_bound_bytes=0,
                       algorithm="per-call descriptors", buffers=buffers)
    with pytest.raises(AssertionError):
        check_plan(buggy, graph)


def test_pack_emits_one_shim_per_kernel_and_descriptors_per_step() -> None:
    graph = read_model(add_reshape_softmax())
    compiled = compile_graph(graph, "packed")
    steps, shims = pack(graph, compiled.steps)
    assert [s.name for s in shims] == ["fg_packed_fg_add_s8", "fg_packed_fg_softmax_s8"]
    assert shims[0].arg_types == ("const int8_t *", "const int8_t *", "int8_t *")
    assert [p.registry_name for p in steps] == ["step0_add", "step1_reshape", "step2_softmax"]
    add, view, softmax = steps
    assert view.shim is None and view.args == ()
    x, c, y = add.args
    assert (x.name, x.shape, x.dl_type, x.ref.storage) == ("step0_arg0", (1, 4, 4, 8), ("kDLInt", 8),
                                                            f"fg_pool + {compiled.plan.offset_of(0)}")
    assert c.ref.storage == "fg_const_1"
    assert y.ref.storage == f"fg_pool + {compiled.plan.offset_of(2)}"
    assert add.num_args == 4 and softmax.num_args == 3
    # The descriptors point exactly where the unpacked calls point: legalization did not move anything.
    assert [a.ref for a in softmax.args] == compiled.steps[2].inputs + compiled.steps[2].outputs


@pytest.mark.parametrize("name", SYNTHETIC)
def test_packed_is_bit_exact(name: str) -> None:
    report = validate_model(SYNTHETIC_MODELS[name](), interface="packed", sanitize=name == "every_op")
    assert report.bit_exact, report.mismatches[:3]


@pytest.mark.parametrize("name", ["person_detect", "pretrainedResnet_quant", "micro_speech_quantized"])
def test_packed_is_bit_exact_on_shared_models(name: str) -> None:
    report = validate_model(shared_model(name), interface="packed")
    assert report.bit_exact, report.mismatches[:3]


def test_bad_packed_calls_return_named_errors_and_never_run_the_kernel(tmp_path: Path) -> None:
    out = tmp_path / "model"
    generate(read_model(add_reshape_softmax()), out, interface="packed")
    probe = tmp_path / "probe"
    command = [host_compiler(), "-std=c99", *WARNINGS, "-fsanitize=address,undefined", f"-I{out}",
               f"-I{out / 'runtime' / 'include'}", *map(str, c_sources(out)),
               str(Path(__file__).with_name("packed_probe.c")), "-o", str(probe), "-lm"]
    subprocess.run(command, check=True)
    lines = dict(line.split(" ", 1) for line in subprocess.run([str(probe)], capture_output=True, text=True,
                                                               check=True).stdout.splitlines())
    assert lines == {
        "count": "wrong argument count", "type_code": "wrong type code", "dtype": "wrong dtype",
        "shape": "wrong shape", "null": "null argument", "untouched": "1", "good": "ok", "ran": "1",
        "step99": "no such step", "find": "2",
    }


def test_host_message_for_a_refused_packed_call() -> None:
    graph = read_model(add_reshape_softmax())
    assert refused_call_message(-4, 2, graph) == "packed call of step 2 (SOFTMAX) refused its arguments: wrong shape"
