"""Code generation and legalization: what the generated C says, and that it builds cleanly everywhere."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from firmware_gen.backend.legalize import legalize
from firmware_gen.driver.compiler import compile_graph, generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.target.host_build import WARNINGS, c_sources


def add_reshape_softmax() -> bytes:
    b = ModelBuilder("add_reshape_softmax")
    x = b.input("x", (1, 4, 4, 8), "int8", scale=0.05, zero_point=-3)
    c = b.constant("c", np.arange(8, dtype=np.int8).reshape(1, 1, 1, 8), scale=0.1, zero_point=1)
    y = b.tensor("y", (1, 4, 4, 8), "int8", scale=0.08, zero_point=2)
    b.operator("ADD", inputs=[x, c], outputs=[y], options={"activation": "RELU"})
    r = b.tensor("r", (16, 8), "int8", scale=0.08, zero_point=2)
    b.operator("RESHAPE", inputs=[y], outputs=[r])
    z = b.tensor("z", (16, 8), "int8", scale=1 / 256, zero_point=-128)
    b.operator("SOFTMAX", inputs=[r], outputs=[z], options={"beta": 1.0})
    b.output(z)
    return b.build()


def test_legalized_steps_point_into_the_plan() -> None:
    graph = read_model(add_reshape_softmax())
    compiled = compile_graph(graph)
    steps = legalize(graph, compiled.calls, compiled.plan)
    add, reshape, softmax = steps
    x_offset, y_offset, z_offset = (compiled.plan.offset_of(i) for i in (0, 2, 5))
    assert [ref.expression for ref in add.inputs] == [f"(const int8_t *)(fg_pool + {x_offset})", "fg_const_1"]
    assert [ref.expression for ref in add.outputs] == [f"(int8_t *)(fg_pool + {y_offset})"]
    assert reshape.call is None and compiled.plan.offset_of(3) == y_offset  # a view shares its input's storage
    assert softmax.inputs[0].expression == f"(const int8_t *)(fg_pool + {y_offset})"
    assert softmax.outputs[0].expression == f"(int8_t *)(fg_pool + {z_offset})"
    assert add.summary == f"ADD(t0@pool+{x_offset}, t1@const) -> t2@pool+{y_offset}"


def test_generated_model_c_reads_as_a_schedule(tmp_path) -> None:
    generate(read_model(add_reshape_softmax()), tmp_path)
    model_c = (tmp_path / "model.c").read_text()
    assert "Pool map" in model_c
    assert "fg_add_s8(&step0_params," in model_c
    assert "/* step 1: RESHAPE" in model_c and "a view of its input: no code" in model_c
    assert "fg_softmax_s8(&step2_params," in model_c
    assert '#include "fg/add.h"' in model_c and '#include "fg/conv2d.h"' not in model_c
    header = (tmp_path / "model.h").read_text()
    assert "#define FG_MODEL_INPUT0_SHAPE { 1, 4, 4, 8 }" in header
    assert "#define FG_MODEL_OUTPUT0_ZERO_POINT -128" in header


def test_output_directory_is_replaced_whole(tmp_path) -> None:
    out = tmp_path / "out"
    generate(read_model(add_reshape_softmax()), out)
    (out / "runtime" / "kernels" / "stale.c").write_text("#error stale\n")
    generate(read_model(add_reshape_softmax()), out)
    assert not (out / "runtime" / "kernels" / "stale.c").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]  # no scratch left behind


@pytest.mark.parametrize("compiler, flags", [
    ("cc", ["-std=c99", "-O2", "-pedantic"]),
    ("arm-none-eabi-gcc", ["-std=c99", "-Os", "-mcpu=cortex-m3", "-mthumb"]),
    ("arm-none-eabi-gcc", ["-std=c99", "-O2", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                           "-mfpu=fpv4-sp-d16"]),
])
def test_generated_c_compiles_without_warnings(tmp_path, compiler: str, flags: list[str]) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    out = tmp_path / "model"
    generate(read_model(add_reshape_softmax()), out)
    for source in c_sources(out):
        done = subprocess.run([compiler, *flags, *WARNINGS, "-c", str(source), f"-I{out}",
                               f"-I{out / 'runtime' / 'include'}", "-o", str(tmp_path / (source.stem + ".o"))],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_a_corrupted_plan_is_refused_before_any_code_is_written(tmp_path, monkeypatch) -> None:
    import dataclasses

    import firmware_gen.driver.compiler as compiler
    from firmware_gen.planner import PlanError

    real = compiler.plan_graph

    def everything_at_offset_zero(*args, **kwargs):
        plan = real(*args, **kwargs)
        plan.buffers = [dataclasses.replace(b, offset=0) for b in plan.buffers]
        return plan

    monkeypatch.setattr(compiler, "plan_graph", everything_at_offset_zero)
    with pytest.raises(PlanError, match="live together and overlap"):
        generate(read_model(add_reshape_softmax()), tmp_path / "out")
    assert not (tmp_path / "out").exists()
