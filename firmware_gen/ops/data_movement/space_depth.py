"""DEPTH_TO_SPACE and SPACE_TO_DEPTH on int8 NHWC tensors, as TFLite Micro's reference kernels compute them.

Both are permutations of a 6-D view of the tensor, run by the TRANSPOSE kernel (block size b):
  DEPTH_TO_SPACE: input [N, H, W, b, b, C] -> output [N, H, b, W, b, C]   (output [N, H*b, W*b, C])
  SPACE_TO_DEPTH: input [N, H, b, W, b, C] -> output [N, H, W, b, b, C]   (output [N, H, W, b*b*C])
Raw int8 values are moved, as TFLM does (input and output share their quantization in converted models).
"""

from __future__ import annotations

from firmware_gen.frontend.ir import DType, Graph, Operator, Tensor
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.data_movement.transpose import permuted_copy_call
from firmware_gen.ops.support.operands import operand, require_arity, require_dtype, unsupported

SWAP_MIDDLE = (0, 1, 3, 2, 4, 5)


class _BlockKernel:
    is_alias = False

    def _checked(self, graph: Graph, op: Operator) -> tuple[Tensor, int]:
        require_arity(graph, op, {1})
        source, result = operand(graph, op, 0), graph.tensors[op.outputs[0]]
        for tensor in (source, result):
            require_dtype(graph, op, tensor, (DType.INT8,))
            if len(tensor.shape) != 4:
                raise unsupported(graph, op, f"{tensor.describe()} is not 4-D NHWC")
        block = op.options.get("block_size", 0)
        if block < 1:
            raise unsupported(graph, op, f"option block_size={block} must be at least 1")
        expected = self.output_shape(source.shape, block)
        if expected is None or tuple(result.shape) != expected:
            raise unsupported(graph, op, f"option block_size={block} does not take input {source.describe()} to "
                                         f"output {result.describe()}")
        return source, block

    def check(self, graph: Graph, op: Operator) -> None:
        self._checked(graph, op)

    def macs(self, graph: Graph, op: Operator) -> int:
        return 0

    def lower(self, graph: Graph, op: Operator) -> KernelCall:
        source, block = self._checked(graph, op)
        return permuted_copy_call(self.view(source.shape, block), SWAP_MIDDLE, op.inputs[0], op.outputs[0])


class DepthToSpaceKernel(_BlockKernel):
    opcode = "DEPTH_TO_SPACE"

    @staticmethod
    def output_shape(shape: tuple[int, ...], b: int) -> tuple[int, ...] | None:
        n, h, w, c = shape
        return None if c % (b * b) else (n, h * b, w * b, c // (b * b))

    @staticmethod
    def view(shape: tuple[int, ...], b: int) -> tuple[int, ...]:
        n, h, w, c = shape
        return n, h, w, b, b, c // (b * b)


class SpaceToDepthKernel(_BlockKernel):
    opcode = "SPACE_TO_DEPTH"

    @staticmethod
    def output_shape(shape: tuple[int, ...], b: int) -> tuple[int, ...] | None:
        n, h, w, c = shape
        return None if h % b or w % b else (n, h // b, w // b, c * b * b)

    @staticmethod
    def view(shape: tuple[int, ...], b: int) -> tuple[int, ...]:
        n, h, w, c = shape
        return n, h // b, b, w // b, b, c


KERNELS = [DepthToSpaceKernel(), SpaceToDepthKernel()]
