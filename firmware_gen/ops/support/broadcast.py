"""Broadcasting of element-wise binary operators folded into the loop nest of
runtime_c/include/fg/support/broadcast.h."""

from __future__ import annotations

from dataclasses import dataclass

MAX_LOOPS = 6  # FG_BROADCAST_MAX_DIMS
MEMBERS = ("dims", "strides1", "strides2")  # fg_broadcast_shape's, in the order of `as_param`


def broadcast_shape(shape1: tuple[int, ...], shape2: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy / TFLite broadcasting of two shapes, or None when they are incompatible."""
    rank = max(len(shape1), len(shape2))
    a = (1,) * (rank - len(shape1)) + tuple(shape1)
    b = (1,) * (rank - len(shape2)) + tuple(shape2)
    result = []
    for x, y in zip(a, b, strict=True):
        if x != y and 1 not in (x, y):
            return None
        result.append(y if x == 1 else x)
    return tuple(result)


@dataclass(frozen=True)
class BroadcastLoops:
    """Output extents (outermost first) and each input's element stride per loop (0 where broadcast)."""

    dims: tuple[int, ...]
    strides1: tuple[int, ...]
    strides2: tuple[int, ...]

    def padded(self, rank: int = MAX_LOOPS) -> BroadcastLoops:
        """The same loops with leading extent-1 loops up to `rank`."""
        extra = rank - len(self.dims)
        return BroadcastLoops((1,) * extra + self.dims, (0,) * extra + self.strides1, (0,) * extra + self.strides2)

    def as_param(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """The fg_broadcast_shape initializer."""
        padded = self.padded()
        return padded.dims, padded.strides1, padded.strides2


def _continues(stride: int, accumulated: int, inner_stride: int) -> bool:
    """Whether an input's loop can merge into the next inner loop: both broadcast, or both contiguous."""
    return stride == 0 if inner_stride == 0 else stride == accumulated


def broadcast_loops(shape1: tuple[int, ...], shape2: tuple[int, ...], output: tuple[int, ...]) -> BroadcastLoops:
    """The fewest loops over a contiguous output: adjacent dimensions fuse while both inputs keep the same
    pattern (contiguous with the inner loop, or broadcast along with it), as TFLite's broadcast loop does."""
    rank = len(output)
    extended = [(1,) * (rank - len(s)) + tuple(s) for s in (shape1, shape2)]
    loops: list[list[int]] = []  # innermost first: [extent, stride1, stride2]
    accumulated = [1, 1]
    for axis in range(rank - 1, -1, -1):
        extent = output[axis]
        if extent == 1:  # no loop at all: every tensor's extent is 1 here
            continue
        strides = [0 if shape[axis] == 1 and extent != 1 else accumulated[k] for k, shape in enumerate(extended)]
        if loops and all(_continues(strides[k], accumulated[k], loops[-1][1 + k]) for k in (0, 1)):
            loops[-1][0] *= extent
        else:
            loops.append([extent, *strides])
        for k, shape in enumerate(extended):
            accumulated[k] *= shape[axis]
    loops.reverse()
    return BroadcastLoops(tuple(loop[0] for loop in loops), tuple(loop[1] for loop in loops),
                          tuple(loop[2] for loop in loops))
