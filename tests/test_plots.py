"""Plots a person can read: buffers by kind and tensor index, the bound labelled; horizontal profile bars."""

from __future__ import annotations

import pytest

from firmware_gen.check.profile import LayerProfile, ModelProfile, plot_profile
from firmware_gen.driver.compiler import plan_model
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen.zoo import residual_block
from firmware_gen.planner.plan import BUFFER_KINDS, MemoryPlan, PlannedBuffer
from firmware_gen.planner.plot import KIND_COLOURS, plan_figure

pytest.importorskip("matplotlib")


def test_the_planner_records_each_buffer_kind() -> None:
    graph = read_model(residual_block())
    plan = plan_model(graph)
    kinds = {b.tensor: b.kind for b in plan.buffers}
    assert kinds.pop(graph.inputs[0]) == "input" and kinds.pop(graph.outputs[0]) == "output"
    assert set(kinds.values()) == {"intermediate"}
    assert {b["kind"] for b in plan.to_json()["buffers"]} == {"input", "output", "intermediate"}
    with pytest.raises(ValueError, match="kind 'weights'"):
        PlannedBuffer((0,), 0, 16, 0, 1, kind="weights")


def test_the_timeline_colours_every_kind_from_the_plan() -> None:
    """A plan holding one buffer of each kind, scratch and state included (LSTM state, planned kernel scratch):
    the plot draws each in its kind's colour and lists every kind in the legend, from the records alone."""
    from matplotlib.colors import to_rgba

    assert set(KIND_COLOURS) == set(BUFFER_KINDS)
    buffers = [PlannedBuffer((i,), 64 * i, 64, i, i + 1, kind=kind) for i, kind in enumerate(BUFFER_KINDS)]
    plan = MemoryPlan(pool_bytes=64 * len(buffers), lower_bound_bytes=128, algorithm="by hand", buffers=buffers)
    figure = plan_figure(plan, title="every kind")
    axis = figure.axes[0]
    drawn = [p for p in axis.patches if p.get_height() > 0]
    assert [p.get_facecolor() for p in drawn] == [to_rgba(KIND_COLOURS[b.kind], 0.6) for b in buffers]
    legend = [text.get_text() for text in axis.get_legend().get_texts()]
    assert legend[:len(BUFFER_KINDS)] == list(BUFFER_KINDS)
    assert [t.get_text() for t in axis.texts] == [f"t{i}" for i in range(len(buffers))]


def test_a_profile_of_120_layers_is_horizontal_and_titled(tmp_path, monkeypatch) -> None:
    import matplotlib.pyplot as plt

    layers = [LayerProfile(i, "CONV_2D", [1, 8, 8, 8], 100, 1000 + i, 1 / 120, 0.1) for i in range(120)]
    profile = ModelProfile("mps2_an386", "instructions", layers, 12_000, sum(x.count for x in layers), 0)
    seen = {}
    monkeypatch.setattr(plt, "close", lambda figure: seen.setdefault("figure", figure))
    path = plot_profile(profile, tmp_path / "profile.png")
    axes = seen["figure"].axes[0]
    assert path.stat().st_size > 0
    assert axes.get_xlabel() == "instructions per layer"
    assert f"total {profile.count:,} instructions over 120 layers" in axes.get_title()
    assert len(axes.get_yticklabels()) == 120 and seen["figure"].get_size_inches()[1] > 20
