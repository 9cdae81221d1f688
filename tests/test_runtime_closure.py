"""The runtime kernels a model carries (backend/runtime_closure.py): every kernel compiles without a warning for the
host and each Cortex-M class, and reading the C text finds every function each object defines and every runtime
function it calls, as the objects' symbol tables say."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from firmware_gen.backend.runtime_closure import KERNELS_DIR, kernel_files, needed_kernels
from firmware_gen.driver.compiler import generate
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.manifest import read_manifest
from firmware_gen.modelgen.writer import ModelBuilder
from firmware_gen.resources import RUNTIME_DIR
from firmware_gen.target.host_build import WARNINGS

CONFIGS = {
    "host": ("cc", ["-std=c99", "-O2", "-pedantic"]),
    "cortex-m3": ("arm-none-eabi-gcc", ["-std=c99", "-Os", "-mcpu=cortex-m3", "-mthumb"]),
    "cortex-m4": ("arm-none-eabi-gcc", ["-std=c99", "-O2", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                                        "-mfpu=fpv4-sp-d16"]),
    "cortex-m55": ("arm-none-eabi-gcc", ["-std=c99", "-Os", "-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"]),
}


def _symbols(obj: Path) -> tuple[set[str], set[str]]:
    """(functions defined, fg_ functions called from outside) by the object."""
    with obj.open("rb") as handle:
        symbols = list(ELFFile(handle).get_section_by_name(".symtab").iter_symbols())
    defined = {s.name for s in symbols if s["st_info"]["bind"] == "STB_GLOBAL" and s["st_shndx"] != "SHN_UNDEF"
               and s["st_info"]["type"] == "STT_FUNC"}
    called = {s.name for s in symbols if s["st_shndx"] == "SHN_UNDEF" and s.name.startswith("fg_")}
    return defined, called


@pytest.mark.parametrize("config", CONFIGS)
def test_every_kernel_compiles_cleanly_and_is_read_right(tmp_path: Path, config: str) -> None:
    compiler, flags = CONFIGS[config]
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    sources = sorted(KERNELS_DIR.rglob("*.c"))
    done = subprocess.run([compiler, *flags, *WARNINGS, f"-I{RUNTIME_DIR / 'include'}", "-c", *map(str, sources)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for kernel in kernel_files():
        defined, called = _symbols(tmp_path / Path(kernel.name).with_suffix(".o").name)
        assert defined <= kernel.defines, f"{kernel.name} defines {sorted(defined - kernel.defines)} unseen"
        assert called <= kernel.uses, f"{kernel.name} calls {sorted(called - kernel.uses)} unseen"


def test_a_model_carries_the_kernels_it_calls_and_theirs(tmp_path: Path) -> None:
    b = ModelBuilder("pad_then_max_pool")
    x = b.input("x", (1, 6, 6, 4), "int8", scale=0.05, zero_point=-3)
    padded = b.tensor("padded", (1, 8, 8, 4), "int8", scale=0.05, zero_point=-3)
    b.operator("PAD", inputs=[x, b.constant("paddings", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))],
               outputs=[padded])
    y = b.tensor("y", (1, 4, 4, 4), "int8", scale=0.05, zero_point=-3)
    b.operator("MAX_POOL_2D", inputs=[padded], outputs=[y],
               options={"stride_w": 2, "stride_h": 2, "filter_w": 2, "filter_h": 2, "padding": "VALID"})
    b.output(y)
    out = tmp_path / "model"
    generate(read_model(b.build()), out)
    kernels = sorted(p.relative_to(out / "runtime" / "kernels").as_posix()
                     for p in (out / "runtime" / "kernels").rglob("*.c"))
    assert kernels == needed_kernels([(out / "model.c").read_text()])
    # max_pool2d.c walks its windows with fg_pool2d_walk, defined in a file of its own.
    walk = next(k.name for k in kernel_files() if "fg_pool2d_walk" in k.defines)
    assert {"data_movement/pad.c", "pooling/max_pool2d.c", walk} <= set(kernels) and len(kernels) < 8, kernels
    assert [s for s in read_manifest(out).sources if s.startswith("runtime/")] == [f"runtime/kernels/{k}"
                                                                                  for k in kernels]


def test_a_function_named_in_a_parameter_struct_is_needed_too() -> None:
    # The blocked kernels take their window walk as a function pointer among their parameters.
    window = next(k.name for k in kernel_files() if "fg_blocked_window_s8" in k.defines)
    assert window in needed_kernels(["static const fg_conv2d_params step0 = {.window = fg_blocked_window_s8};"])


def test_headers_including_each_other_are_each_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware_gen.backend import runtime_closure

    (tmp_path / "fg").mkdir()
    (tmp_path / "fg" / "a.h").write_text('#include "fg/b.h"\nstatic inline void fg_a(void) { fg_x(); }\n')
    (tmp_path / "fg" / "b.h").write_text('#include "fg/a.h"\nstatic inline void fg_b(void) { fg_y(); }\n')
    monkeypatch.setattr(runtime_closure, "_HEADERS_DIR", tmp_path)
    runtime_closure._header.cache_clear()
    try:
        assert {"fg_x", "fg_y"} <= runtime_closure.included_uses('#include "fg/a.h"\n')
    finally:
        runtime_closure._header.cache_clear()


def test_the_dsp_tile_stores_and_pointwise_run_are_carried_only_by_the_kernels_that_run_them() -> None:
    # One copy per firmware (support files, not static in each kernel), and none for a kernel that calls neither.
    def carried(function: str) -> list[str]:
        return needed_kernels([f"void f(void) {{ {function}(0, 0, 0, 0); }}"])

    # the 4-bit convolution runs a pointwise layer unpacked once through the int8 pointwise kernel's run
    for kernel in ("fg_conv2d_pointwise_dsp", "fg_conv2d_pointwise_staged_dsp", "fg_conv2d_s4_dsp"):
        assert {"support/dsp_pointwise_run.c", "support/dsp_tile_store.c"} <= set(carried(kernel)), kernel
    for kernel in ("fg_conv2d_folded_dsp",):
        assert "support/dsp_tile_store.c" in carried(kernel) and "support/dsp_pointwise_run.c" not in carried(kernel)
    for kernel in ("fg_depthwise_conv2d_3x3_dsp", "fg_fully_connected_dsp", "fg_add_dsp"):
        files = set(carried(kernel))
        assert files and not {"support/dsp_pointwise_run.c", "support/dsp_tile_store.c"} & files, kernel
