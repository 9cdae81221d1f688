"""ADD_N of int8 tensors of one shape and one quantization, as TFLM's add_n.cc and reference AddN compute it
(ADD's rescaling with 20 bits of headroom; the sum starts from the rescaled raw byte 0, a TFLM quirk kept for
bit-exactness)."""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.elementwise.elementwise import ADD_LEFT_SHIFT
from firmware_gen.ops.overlap import OutputOverlap, elementwise_overlap
from firmware_gen.ops.support.fixedpoint import quantize_multiplier_smaller_than_one_exp
from firmware_gen.ops.support.tensor_checks import int8_per_tensor, unsupported


class AddNKernel:
    opcode = "ADD_N"
    is_alias = False

    def operands(self, graph: Graph, op: Operator) -> tuple[list[Tensor], Tensor]:
        if len(op.inputs) < 2 or len(op.outputs) != 1:
            raise unsupported(graph, op, f"expected at least two inputs and one output, got {len(op.inputs)} and "
                                         f"{len(op.outputs)}")
        result = int8_per_tensor(graph, op, op.outputs[0], "output")
        sources = [int8_per_tensor(graph, op, index, f"input {k + 1}") for k, index in enumerate(op.inputs)]
        first = sources[0]
        for k, source in enumerate(sources):
            if tuple(source.shape) != tuple(result.shape):
                raise unsupported(graph, op, f"input {k + 1} {source.describe()} does not have the shape of output "
                                             f"{result.describe()}")
            q, q0 = source.quantization, first.quantization
            if (q.scale, q.zero_point) != (q0.scale, q0.zero_point):
                raise unsupported(graph, op, f"input {k + 1} {source.describe()} has scale {q.scale:.9g} and zero "
                                             f"point {q.zero_point}, input 1 {q0.scale:.9g} and {q0.zero_point}; "
                                             "TFLM requires one quantization for all inputs")
        return sources, result

    def _params(self, graph: Graph, op: Operator) -> dict[str, int]:
        sources, result = self.operands(graph, op)
        in_q, out_q = sources[0].quantization, result.quantization
        twice_max_input_scale = 2.0 * in_q.scale
        input_multiplier, input_shift = quantize_multiplier_smaller_than_one_exp(in_q.scale / twice_max_input_scale)
        try:
            output_multiplier, output_shift = quantize_multiplier_smaller_than_one_exp(
                twice_max_input_scale / ((1 << ADD_LEFT_SHIFT) * out_q.scale))
        except ValueError:
            raise unsupported(graph, op, f"output {result.describe()} scale {out_q.scale} is too small for the "
                                         f"input scale {in_q.scale}") from None
        return {"num_inputs": len(sources), "num_elements": result.num_elements,
                "input_offset": -in_q.zero_point, "input_multiplier": input_multiplier, "input_shift": input_shift,
                "left_shift": ADD_LEFT_SHIFT, "output_offset": out_q.zero_point,
                "output_multiplier": output_multiplier, "output_shift": output_shift,
                "activation_min": -128, "activation_max": 127}

    def check(self, graph: Graph, op: Operator) -> None:
        self._params(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return graph.tensors[op.outputs[0]].num_elements * len(op.inputs)

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        return KernelCall("fg_add_n_s8", "fg_add_n_params", self._params(graph, op), inputs=list(op.inputs),
                          outputs=[op.outputs[0]], variadic_inputs=True)

    def output_overlap(self, graph: Graph, op: Operator) -> list[OutputOverlap]:
        return elementwise_overlap(graph, op)


KERNELS = [AddNKernel()]
