"""driver/deploy.py: a firmware the linker finds over the flash is lowered again with that many bytes fewer
constants in wide weight layouts, and built again, until it fits. The wide layouts' budget counts a fixed reserve for
the code (ops/convolution/wide_layout.py's CODE_RESERVE); here the reserve is set to nothing, as if a model's kernels
(or Zephyr's kernel beside them) took more than it, so that the first link overflows."""

from __future__ import annotations

import dataclasses

from target_fixtures import needs_cross_gcc

from firmware_gen.backend.options import GenerationOptions
from firmware_gen.driver.deploy import prepare
from firmware_gen.modelgen.zoo import SYNTHETIC_MODELS
from firmware_gen.ops import variant_choice
from firmware_gen.ops.convolution import wide_layout
from firmware_gen.ops.convolution.wide_layout import constant_bytes
from firmware_gen.planner import PlanningOptions
from firmware_gen.target.boards import load_board


def _compact_and_wide():
    """small_mobilenet_v2, mps2_an385, and its builds there in the compact layouts and in every wide one (4 MiB)."""
    model = SYNTHETIC_MODELS["small_mobilenet_v2"]()
    board = load_board("mps2_an385")
    compact = prepare(model, "m.tflite", board, generation=GenerationOptions(compact_weights=True))
    return model, board, compact, prepare(model, "m.tflite", board)


def _no_code_reserve(monkeypatch) -> None:
    """The wide layouts' budget counts no reserve for the code: the first link overflows."""
    for module in (wide_layout, variant_choice):
        monkeypatch.setattr(module, "CODE_RESERVE", 0)


@needs_cross_gcc
def test_a_build_over_the_flash_is_built_again_with_fewer_wide_constants(monkeypatch):
    model, board, compact, wide = _compact_and_wide()  # mps2_an385's RAM: no patch stage (whose retry comes first)
    extra = wide.firmware.flash_bytes - compact.firmware.flash_bytes
    assert extra > 4096
    size = compact.firmware.flash_bytes + extra // 2
    small = dataclasses.replace(board, regions=tuple(dataclasses.replace(r, size=size) if r.name == "code SRAM" else r
                                                     for r in board.regions))
    _no_code_reserve(monkeypatch)
    said: list[str] = []
    built = prepare(model, "m.tflite", small, progress=said.append)
    assert any("does not fit" in line and "trying narrower weight layouts" in line for line in said), said
    assert built.firmware.flash_bytes <= size
    narrowed = constant_bytes(built.compiled.graph, built.compiled.calls)
    assert (constant_bytes(compact.compiled.graph, compact.compiled.calls) < narrowed
            < constant_bytes(wide.compiled.graph, wide.compiled.calls))  # some wide layouts kept, not all


@needs_cross_gcc
def test_when_the_patch_stages_run_out_the_first_stage_is_built_with_narrower_layouts(monkeypatch):
    """A model that needs a patch stage for the RAM and overflows the flash: the stages of fewer calls are tried
    first; when they run out (here the search starts below 6 calls), the first stage is kept and its
    weight layouts narrowed, instead of the first error."""
    model, board, compact, wide = _compact_and_wide()
    assert wide.compiled.plan.pool_bytes > 100_000  # the whole-tensor plan: no stage
    size = compact.firmware.flash_bytes + (wide.firmware.flash_bytes - compact.firmware.flash_bytes) // 2

    def shrunk(region):
        if region.name == "code SRAM":
            return dataclasses.replace(region, size=size)
        return dataclasses.replace(region, size=100_000) if "pool" in region.holds else region

    small = dataclasses.replace(board, regions=tuple(shrunk(r) for r in board.regions))
    _no_code_reserve(monkeypatch)
    said: list[str] = []
    built = prepare(model, "m.tflite", small, progress=said.append, options=PlanningOptions(stage_calls_below=6))
    assert [line for line in said if "trying a patch stage" in line]
    assert "trying narrower weight layouts" in [line for line in said if "does not fit" in line][-1]
    assert built.compiled.stage is not None and built.firmware.flash_bytes <= size
