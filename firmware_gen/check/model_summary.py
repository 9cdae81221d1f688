"""What a model is made of: operators, tensors, MACs, weight bytes, activation memory."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from firmware_gen.driver.compiler import plan_model
from firmware_gen.errors import UnsupportedModelError
from firmware_gen.frontend.ir import Graph
from firmware_gen.ops import fold, macs, refusals
from firmware_gen.planner import PlanningOptions


@dataclass
class OperatorSummary:
    index: int
    opcode: str
    inputs: list[int]
    outputs: list[int]
    output_shape: list[int]
    macs: int
    unsupported: str = ""  # why firmware-gen cannot compile it; "" when it can
    folded: bool = False  # computed at generation time (ops/constant_folding.py)


@dataclass
class ModelSummary:
    name: str
    operators: list[OperatorSummary]
    num_tensors: int
    inputs: list[dict]
    outputs: list[dict]
    macs: int
    weight_bytes: int
    activation_lower_bound_bytes: int | None  # None when some operator cannot be compiled

    @property
    def unsupported(self) -> list[OperatorSummary]:
        return [op for op in self.operators if op.unsupported]

    def to_json(self) -> dict:
        return asdict(self)


def _io(graph: Graph, index: int) -> dict:
    tensor = graph.tensors[index]
    q = tensor.quantization
    return {"tensor": index, "name": tensor.name, "shape": list(tensor.shape), "dtype": str(tensor.dtype),
            "scale": q.scale if q else None, "zero_point": q.zero_point if q else None}


def summarize(graph: Graph, unsupported_too: bool = False) -> ModelSummary:
    """The summary of a model. A model with operators firmware-gen cannot compile raises UnsupportedModelError
    naming the first, unless unsupported_too: then every such operator says why in the summary."""
    problems = refusals(graph)
    if problems and not unsupported_too:
        raise UnsupportedModelError(problems[min(problems)])
    folded = fold(graph)
    kept = {op.index for op in folded.operators}
    op_macs = {} if problems else macs(folded)
    operators = [OperatorSummary(op.index, op.opcode, list(op.inputs), list(op.outputs),
                                 list(graph.tensors[op.outputs[0]].shape) if op.outputs else [],
                                 op_macs.get(op.index, 0), problems.get(op.index, ""), op.index not in kept)
                 for op in graph.operators]
    bound = None if problems else plan_model(folded, PlanningOptions(overlap=False)).lower_bound_bytes
    return ModelSummary(
        name=graph.name,
        operators=operators,
        num_tensors=len(graph.tensors),
        inputs=[_io(graph, i) for i in graph.inputs],
        outputs=[_io(graph, i) for i in graph.outputs],
        macs=sum(o.macs for o in operators),
        weight_bytes=sum(t.nbytes for t in graph.tensors if t.is_constant),
        activation_lower_bound_bytes=bound,  # the tensor-level bound needs no overlap
    )


def format_summary(summary: ModelSummary) -> str:
    lines = [f"model {summary.name}: {len(summary.operators)} operators, {summary.num_tensors} tensors",
             f"{'#':>4}  {'operator':<20} {'output shape':<20} {'MACs':>12}"]
    for op in summary.operators:
        note = "  folded: a constant" if op.folded else "  UNSUPPORTED" if op.unsupported else ""
        lines.append(f"{op.index:>4}  {op.opcode:<20} {str(op.output_shape):<20} {op.macs:>12,}{note}")
    for kind, items in (("input", summary.inputs), ("output", summary.outputs)):
        for io in items:
            lines.append(f"{kind} t{io['tensor']} '{io['name']}' {io['shape']} {io['dtype']} "
                         f"scale={io['scale']} zero_point={io['zero_point']}")
    if summary.unsupported:
        lines.append(f"{len(summary.unsupported)} operator(s) firmware-gen cannot compile:")
        reasons = [op.unsupported.partition("; supported: ") for op in summary.unsupported]
        lines.extend(f"  {reason}" for reason, _, _ in reasons)
        supported = next((names for _, _, names in reasons if names), "")
        return "\n".join(lines + ([f"supported operators: {supported}"] if supported else []))
    lines.append(f"MACs: {summary.macs:,}   weights: {summary.weight_bytes:,} B   "
                 f"activation lower bound: {summary.activation_lower_bound_bytes:,} B")
    return "\n".join(lines)
