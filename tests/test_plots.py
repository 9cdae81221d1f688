"""Plots a person can read: buffers by kind and tensor index, the bound labelled; horizontal profile bars."""

from __future__ import annotations

import pytest

from firmware_gen.check.profile import LayerProfile, ModelProfile, plot_profile
from firmware_gen.planner.plan import PlannedBuffer
from firmware_gen.planner.plot import buffer_kind

pytest.importorskip("matplotlib")


def test_buffer_kinds() -> None:
    def buffer(*tensors: int) -> PlannedBuffer:
        return PlannedBuffer(tensors, 0, 16, 0, 1)

    assert [buffer_kind(buffer(*t), inputs={0}, outputs={9}) for t in ((0,), (3, 9), (4,), (0, 9))] == [
        "input", "output", "intermediate", "output"]


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
