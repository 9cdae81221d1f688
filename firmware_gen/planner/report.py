"""A memory plan as a small text table, for the CLI."""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph
from firmware_gen.planner.plan import MemoryPlan

NAME_WIDTH = 60  # converter names run to hundreds of characters; their start says what the tensor is


def format_plan(plan: MemoryPlan, graph: Graph) -> str:
    """One row per buffer in pool order: tensor(s), offset, size, first and last step, then the tensor names."""
    proof = "proven optimal" if plan.proven_optimal else f"proven bound {plan.proven_lower_bound_bytes:,} B"
    lines = [f"pool {plan.pool_bytes:,} B, lower bound {plan.lower_bound_bytes:,} B "
             f"({plan.unaligned_lower_bound_bytes:,} B before {plan.alignment}-byte rounding), "
             f"algorithm {plan.algorithm}{', overlap' if plan.overlap else ''}, {proof}"]
    several = len(plan.pools) > 1
    if several:
        lines.append("pools: " + ", ".join(
            f"{p.name or 'default'} {plan.pool_sizes[p.name]:,} B" + (f" of {p.size_limit:,}" if p.size_limit else "")
            for p in plan.pools))
    pool_column = "pool  " if several else ""
    lines.append(f"{'tensor':<12} {'offset':>8} {'size':>8} {'first':>6} {'last':>6}  {pool_column}name")
    for buffer in sorted(plan.buffers, key=lambda b: (b.pool, b.offset, b.first_op)):
        indices = buffer.label
        names = " = ".join(graph.tensors[i].name for i in buffer.tensors)
        if several:
            names = f"{buffer.pool:<5} {names}"
        if len(names) > NAME_WIDTH:
            names = names[:NAME_WIDTH - 3] + "..."
        lines.append(f"{indices:<12} {buffer.offset:>8} {buffer.size:>8} {buffer.first_op:>6} {buffer.last_op:>6}  "
                     f"{names}")
    return "\n".join(lines)
