"""A memory plan as a small text table, for the CLI."""

from __future__ import annotations

from firmware_gen.ir import Graph
from firmware_gen.planner.plan import MemoryPlan


def format_plan(plan: MemoryPlan, graph: Graph) -> str:
    lines = [f"pool {plan.pool_bytes:,} B, lower bound {plan.lower_bound_bytes:,} B "
             f"({plan.unaligned_lower_bound_bytes:,} B before {plan.alignment}-byte rounding), "
             f"algorithm {plan.algorithm}",
             f"{'tensor':<40} {'offset':>8} {'size':>8} {'first':>6} {'last':>6}"]
    for buffer in sorted(plan.buffers, key=lambda b: (b.offset, b.first_op)):
        names = " = ".join(f"t{i} {graph.tensors[i].name}" for i in buffer.tensors)
        if len(names) > 40:
            names = names[:37] + "..."
        lines.append(f"{names:<40} {buffer.offset:>8} {buffer.size:>8} {buffer.first_op:>6} {buffer.last_op:>6}")
    return "\n".join(lines)
