"""FILL (every element the int8 scalar `value`), ZEROS_LIKE (every element 0, not the zero point, as TFLM writes
it) and SHAPE. All three usually disappear at generation time (ops/constant_folding.py: their results depend on
static shapes and constants only); what is left runs fg_fill_s8."""

from __future__ import annotations

from firmware_gen.frontend.ir import DType, Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.operands import constant_ints, operand, require_arity, require_dtype, unsupported


class FillKernel:
    opcode = "FILL"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {2})
        value, output = operand(graph, op, 1), graph.tensors[op.outputs[0]]
        require_dtype(graph, op, value, (DType.INT8,))
        require_dtype(graph, op, output, (DType.INT8,))
        if value.num_elements != 1:
            raise unsupported(graph, op, f"the value {value.describe()} is not a scalar")
        dims = tuple(int(d) for d in constant_ints(graph, op, 0, "dims").ravel())
        if dims != tuple(output.shape):
            raise unsupported(graph, op, f"dims {list(dims)} differ from {output.describe()}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        output = graph.tensors[op.outputs[0]]
        return KernelCall(function="fg_fill_s8", params_type="fg_fill_params", params={"count": output.num_elements},
                          inputs=[op.inputs[1]], outputs=[op.outputs[0]])


class ZerosLikeKernel:
    opcode = "ZEROS_LIKE"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {1})
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        require_dtype(graph, op, output, (DType.INT8,))
        if source.dtype is not output.dtype or source.shape != output.shape:
            raise unsupported(graph, op, f"{output.describe()} differs from {source.describe()}")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        output = graph.tensors[op.outputs[0]]
        return KernelCall(function="fg_fill_s8", params_type="fg_fill_params", params={"count": output.num_elements},
                          inputs=[-1], outputs=[op.outputs[0]])


class ShapeKernel:
    """Always folded into a constant; only a SHAPE that is itself a graph output stays, and is refused."""

    opcode = "SHAPE"
    is_alias = False

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {1})
        raise unsupported(graph, op, f"{graph.tensors[op.outputs[0]].describe()} is a graph output; SHAPE is "
                                     "computed at generation time and cannot be one")

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        raise AssertionError(f"{op.describe()} is folded into a constant")


KERNELS = [FillKernel(), ZerosLikeKernel(), ShapeKernel()]
