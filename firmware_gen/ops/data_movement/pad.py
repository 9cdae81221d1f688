"""PAD (pad value: the output zero point) and PADV2 (a constant pad value) of int8 tensors, up to 5-D, and of int16
tensors up to 4-D (fg_pad_s16: fg_pad_s8 on bytes, each element one more dimension of two bytes, the padding filled
with the pad value's two bytes in turn)."""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.operands import (
    constant_ints,
    moved_element_bytes,
    moved_function,
    operand,
    per_tensor_quantization,
    require_arity,
    require_dtype,
    unsupported,
)

PAD_RANK = 5  # FG_PAD_RANK in runtime_c/include/fg/pad.h


class PadKernel:
    is_alias = False

    def __init__(self, opcode: str, num_inputs: int) -> None:
        self.opcode = opcode
        self.num_inputs = num_inputs

    def _paddings(self, graph: Graph, op: Operator) -> np.ndarray:
        rank = len(operand(graph, op, 0).shape)
        paddings = constant_ints(graph, op, 1, "paddings")
        if paddings.shape != (rank, 2):
            raise unsupported(graph, op, f"paddings have shape {list(paddings.shape)}, expected [{rank}, 2]")
        if (paddings < 0).any():
            raise unsupported(graph, op, "negative paddings are not supported")
        return paddings

    def _pad_value(self, graph: Graph, op: Operator) -> int:
        if self.num_inputs == 2:
            return per_tensor_quantization(graph, op, graph.tensors[op.outputs[0]]).zero_point
        value = operand(graph, op, 2)
        require_dtype(graph, op, value, (operand(graph, op, 0).dtype,))
        if not value.is_constant or value.num_elements != 1:
            raise unsupported(graph, op, f"the pad value ({value.describe()}) must be a constant scalar")
        return int(np.asarray(value.data).ravel()[0])

    def check(self, graph: Graph, op: Operator) -> None:
        require_arity(graph, op, {self.num_inputs})
        source, output = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        element_bytes = moved_element_bytes(graph, op, source, output)
        if len(source.shape) + (element_bytes > 1) > PAD_RANK:
            raise unsupported(graph, op, f"{source.describe()} has more than {PAD_RANK - (element_bytes > 1)} "
                                         f"dimensions")
        paddings = self._paddings(graph, op)
        expected = tuple(int(n + b + a) for n, (b, a) in zip(source.shape, paddings, strict=True))
        if tuple(output.shape) != expected:
            raise unsupported(graph, op, f"{output.describe()} should have shape {list(expected)}")
        self._pad_value(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source = operand(graph, op, 0)
        element_bytes = source.dtype.itemsize
        shape = [int(n) for n in source.shape] + ([element_bytes] if element_bytes > 1 else [])
        paddings = [(int(b), int(a)) for b, a in self._paddings(graph, op)]
        paddings += [(0, 0)] * (len(shape) - len(source.shape))
        extra = PAD_RANK - len(shape)  # leading unit dimensions
        return KernelCall(
            function=moved_function("fg_pad_s8", element_bytes), params_type="fg_pad_params",
            params={"input_shape": (1,) * extra + tuple(shape),
                    "before": (0,) * extra + tuple(b for b, _ in paddings),
                    "after": (0,) * extra + tuple(a for _, a in paddings),
                    "pad_value": self._pad_value(graph, op), "value_bytes": element_bytes},
            inputs=[op.inputs[0]], outputs=[op.outputs[0]])


KERNELS = [PadKernel("PAD", 2), PadKernel("PADV2", 3)]
