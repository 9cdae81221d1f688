"""SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on int8 tensors, as TFLite Micro's reference kernels compute them (the
pair TensorFlow wraps around a dilated convolution).

NHWC 4-D, or 3-D [N, H, C] read as [N, H, 1, C] with one block dimension (TFLM's extension). Block shape and
paddings / crops must be constant int32 tensors (as TFLM needs them to size the output).
  SPACE_TO_BATCH_ND: output batch (sy * block_w + sx) * N + n, pixel (y, x) = input (n, y * block_h + sy - pad_top,
                     x * block_w + sx - pad_left), or 0 where that falls in the padding
  BATCH_TO_SPACE_ND: the inverse, then the crops removed
Raw int8 values are moved. SPACE_TO_BATCH_ND pads with the raw value 0, as TFLM's int8 kernel does (not the zero
point: with a nonzero zero point the padding is not the real value 0; we follow the oracle).
"""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.support.operands import constant_ints, operand, require_arity, require_dtype, unsupported


def _nhwc(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape if len(shape) == 4 else (shape[0], shape[1], 1, shape[2])


class _SpaceBatchKernel:
    is_alias = False

    def _geometry(self, graph: Graph, op: Operator) -> tuple[Tensor, Tensor, tuple[int, int], np.ndarray]:
        """Input, output, (block_h, block_w) and [[before, after]] for H and W (paddings or crops), checked."""
        require_arity(graph, op, {3})
        source, result = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        for tensor in (source, result):
            require_dtype(graph, op, tensor, (DType.INT8,))
            if len(tensor.shape) not in (3, 4) or len(tensor.shape) != len(source.shape):
                raise unsupported(graph, op, f"{tensor.describe()}: input and output must both be 3-D or 4-D")
        spatial = len(source.shape) - 2
        block = [int(b) for b in constant_ints(graph, op, 1, "block shape").ravel()]
        edges = constant_ints(graph, op, 2, self.edges_name).reshape(-1)
        if len(block) != spatial or edges.size != 2 * spatial or min(block) < 1 or edges.min(initial=0) < 0:
            raise unsupported(graph, op, f"block shape {block} and {self.edges_name} {edges.tolist()} are not valid "
                                         f"for input {source.describe()}")
        block_hw = (block[0], block[1] if spatial == 2 else 1)
        edges_hw = np.vstack([edges.reshape(spatial, 2), np.zeros((2 - spatial, 2), np.int64)])
        expected = self.output_shape(_nhwc(source.shape), block_hw, edges_hw)
        if expected is None or _nhwc(result.shape) != expected:
            raise unsupported(graph, op, f"block shape {block} with {self.edges_name} {edges.tolist()} does not take "
                                         f"input {source.describe()} to output {result.describe()}")
        return source, result, block_hw, edges_hw

    def check(self, graph: Graph, op: Operator) -> None:
        self._geometry(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, result, block, edges = self._geometry(graph, op)
        params = {"in_shape": _nhwc(source.shape), "out_shape": _nhwc(result.shape), "block_h": block[0],
                  "block_w": block[1], "before_h": int(edges[0, 0]), "before_w": int(edges[1, 0])}
        return KernelCall(self.function, "fg_space_batch_params", params, inputs=[op.inputs[0]],
                          outputs=[op.outputs[0]])


class SpaceToBatchNdKernel(_SpaceBatchKernel):
    opcode = "SPACE_TO_BATCH_ND"
    function = "fg_space_to_batch_s8"
    edges_name = "paddings"

    @staticmethod
    def output_shape(shape: tuple[int, ...], block: tuple[int, int], pads: np.ndarray) -> tuple[int, ...] | None:
        n, h, w, c = shape
        padded = (h + int(pads[0].sum()), w + int(pads[1].sum()))
        if padded[0] % block[0] or padded[1] % block[1]:
            return None
        return n * block[0] * block[1], padded[0] // block[0], padded[1] // block[1], c


class BatchToSpaceNdKernel(_SpaceBatchKernel):
    opcode = "BATCH_TO_SPACE_ND"
    function = "fg_batch_to_space_s8"
    edges_name = "crops"

    @staticmethod
    def output_shape(shape: tuple[int, ...], block: tuple[int, int], crops: np.ndarray) -> tuple[int, ...] | None:
        n, h, w, c = shape
        out_h, out_w = h * block[0] - int(crops[0].sum()), w * block[1] - int(crops[1].sum())
        if n % (block[0] * block[1]) or out_h < 1 or out_w < 1:
            return None
        return n // (block[0] * block[1]), out_h, out_w, c


KERNELS = [SpaceToBatchNdKernel(), BatchToSpaceNdKernel()]
