"""The memory timeline of a plan as a PNG: x the schedule step, y the address, one rectangle per buffer.

Each pool gets its own panel, with its size and (for the whole plan) the tensor-level bound, the pool a plan
without overlap could reach, as lines. Each buffer is labelled by its tensor indices and coloured by the kind its
record carries (`PlannedBuffer.kind`: input, output, intermediate, scratch, state); the legend lists the kinds
present.
matplotlib is an optional dependency (`pip install firmware-gen[plot]`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware_gen.figures import pyplot, save_figure
from firmware_gen.planner.plan import MemoryPlan, PlannedBuffer

KIND_COLOURS = {"input": "tab:green", "output": "tab:red", "intermediate": "tab:blue",  # one per BUFFER_KINDS
                "scratch": "tab:orange", "state": "tab:purple"}
PLAN_DPI = 100


def _draw_buffer(axis, rectangle, buffer: PlannedBuffer) -> None:
    width = buffer.last_op - buffer.first_op + 0.9
    axis.add_patch(rectangle((buffer.first_op - 0.45, buffer.offset), width, buffer.size,
                             facecolor=KIND_COLOURS[buffer.kind], edgecolor="black", linewidth=0.5, alpha=0.6))
    axis.text(buffer.first_op - 0.4, buffer.offset + buffer.size / 2, buffer.label, fontsize=6, va="center",
              clip_on=True)


def plan_figure(plan: MemoryPlan, title: str = "") -> Any:
    """The memory timeline as a matplotlib figure (the caller saves and closes it)."""
    plt = pyplot()
    from matplotlib.patches import Rectangle

    pools = [pool for pool in plan.pools if plan.pool_sizes.get(pool.name, 0) > 0] or plan.pools[:1]
    figure, axes = plt.subplots(len(pools), 1, figsize=(10, 3 + 3 * len(pools)), squeeze=False)
    steps = max((b.last_op for b in plan.buffers), default=0) + 1
    for axis, pool in zip(axes[:, 0], pools, strict=True):
        kinds = set()
        for buffer in (b for b in plan.buffers if b.pool == pool.name):
            kinds.add(buffer.kind)
            _draw_buffer(axis, Rectangle, buffer)
        for kind in (k for k in KIND_COLOURS if k in kinds):
            axis.add_patch(Rectangle((0, 0), 0, 0, facecolor=KIND_COLOURS[kind], alpha=0.6, label=kind))
        size = plan.pool_sizes.get(pool.name, plan.pool_bytes)
        axis.axhline(size, color="black", label=f"pool {size:,} B")
        if len(plan.pools) == 1:
            axis.axhline(plan.lower_bound_bytes, color="red", linestyle="--",
                         label=f"tensor-level bound, without overlap {plan.lower_bound_bytes:,} B")
        if pool.size_limit is not None:
            axis.axhline(pool.size_limit, color="grey", linestyle=":", label=f"limit {pool.size_limit:,} B")
        top = max(size, plan.lower_bound_bytes if len(plan.pools) == 1 else 0, pool.size_limit or 0, 1)
        axis.set_xlim(-0.5, steps - 0.5)
        axis.set_ylim(0, top * 1.05)
        axis.set_xlabel("schedule step")
        axis.set_ylabel(f"pool {pool.name or 'default'}: offset (bytes)")
        axis.legend(loc="upper right", fontsize="small")
    figure.suptitle(f"{title} {plan.algorithm}{', overlap' if plan.overlap else ''}".strip())
    figure.tight_layout()
    return figure


def plot_plan(plan: MemoryPlan, path: str | Path, title: str = "") -> Path:
    """The memory timeline as a PNG at `path`."""
    return save_figure(plan_figure(plan, title), path, dpi=PLAN_DPI)

