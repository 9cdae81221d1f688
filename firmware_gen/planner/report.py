"""A memory plan as a small text table, for the CLI."""

from __future__ import annotations

from firmware_gen.ir import Graph
from firmware_gen.planner.plan import MemoryPlan

NAME_WIDTH = 60  # converter names run to hundreds of characters; their start says what the tensor is


def format_plan(plan: MemoryPlan, graph: Graph) -> str:
    """One row per buffer in pool order: tensor(s), offset, size, first and last step, then the tensor names."""
    lines = [f"pool {plan.pool_bytes:,} B, lower bound {plan.lower_bound_bytes:,} B "
             f"({plan.unaligned_lower_bound_bytes:,} B before {plan.alignment}-byte rounding), "
             f"algorithm {plan.algorithm}",
             f"{'tensor':<12} {'offset':>8} {'size':>8} {'first':>6} {'last':>6}  name"]
    for buffer in sorted(plan.buffers, key=lambda b: (b.offset, b.first_op)):
        indices = "=".join(f"t{i}" for i in buffer.tensors)
        names = " = ".join(graph.tensors[i].name for i in buffer.tensors)
        if len(names) > NAME_WIDTH:
            names = names[:NAME_WIDTH - 3] + "..."
        lines.append(f"{indices:<12} {buffer.offset:>8} {buffer.size:>8} {buffer.first_op:>6} {buffer.last_op:>6}  "
                     f"{names}")
    return "\n".join(lines)
