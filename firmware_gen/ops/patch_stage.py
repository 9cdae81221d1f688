"""Patch-based execution of a graph prefix (MCUNetV2, arXiv 2110.15352): the geometry.

A *stage* is a chain of operators from a graph input to the output of a chosen operator. Its output is split into a
grid of patches; for each patch the region of every tensor of the stage that the patch needs is traced back through
every layer (kernel, stride, dilation, padding). Each layer then runs on its input region with the patch's own
geometry: the padding of the full tensor where the region touches the image border, none inside (the bottom and
right padding fall out of the region's size, as the kernels skip taps at or past in_h / in_w). Overlapping halos
are recomputed by neighbouring patches.

This module knows shapes and windows only; which kernels take patch geometry is ops/patch_kernels.py, the choice of
stage and grid driver/patch_choice.py, the emission backend/patch_emit.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph

# The operators a stage may hold: windowed ones, and elementwise ones (a 1x1 window of stride 1) whose kernel
# ops/patch_kernels.py knows to take a region's element count (the int8 activations and QUANTIZE: a lookup table).
WINDOWED = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")


@dataclass(frozen=True)
class Span:
    """Half-open [start, stop) along one axis."""

    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True)
class Rect:
    rows: Span
    cols: Span

    @property
    def pixels(self) -> int:
        return self.rows.size * self.cols.size


@dataclass(frozen=True)
class Window:
    """One layer's window along both axes, and its tensors' spatial sizes."""

    filter: tuple[int, int]
    stride: tuple[int, int]
    dilation: tuple[int, int]
    pad: tuple[int, int]  # pad_top, pad_left of the whole tensor
    in_size: tuple[int, int]
    out_size: tuple[int, int]

    @classmethod
    def of(cls, params: dict) -> Window:
        """From a kernel call's params (every windowed kernel names its geometry alike)."""
        return cls((params["filter_h"], params["filter_w"]), (params["stride_h"], params["stride_w"]),
                   (params.get("dilation_h", 1), params.get("dilation_w", 1)), (params["pad_top"], params["pad_left"]),
                   (params["in_h"], params["in_w"]), (params["out_h"], params["out_w"]))

    @classmethod
    def elementwise(cls, height: int, width: int) -> Window:
        return cls((1, 1), (1, 1), (1, 1), (0, 0), (height, width), (height, width))


def input_span(out: Span, axis: int, window: Window) -> tuple[Span, int]:
    """The input rows (axis 0) or columns (axis 1) that outputs `out` read, clipped to the image, and the padding
    before the first of them that the kernel must assume (the whole tensor's at the top/left border, else 0)."""
    stride, dilation, pad = window.stride[axis], window.dilation[axis], window.pad[axis]
    low = out.start * stride - pad
    high = (out.stop - 1) * stride - pad + (window.filter[axis] - 1) * dilation + 1
    start, stop = max(low, 0), min(high, window.in_size[axis])
    return Span(start, stop), start - low


@dataclass(frozen=True)
class LayerPatch:
    """One layer of one patch: its input region, its output region, the padding it runs with."""

    input: Rect  # what it reads of its first input
    output: Rect  # what it computes: the region of its output tensor all the tensor's readers need
    pad: tuple[int, int]
    extra: tuple[Rect, ...] = ()  # what it reads of its other inputs (ADD's second)

    def params(self) -> dict[str, int]:
        """The geometry fields of the layer's kernel params for this patch."""
        return {"in_h": self.input.rows.size, "in_w": self.input.cols.size, "out_h": self.output.rows.size,
                "out_w": self.output.cols.size, "pad_top": self.pad[0], "pad_left": self.pad[1]}


def _box(a: Rect | None, b: Rect) -> Rect:
    if a is None:
        return b
    return Rect(Span(min(a.rows.start, b.rows.start), max(a.rows.stop, b.rows.stop)),
                Span(min(a.cols.start, b.cols.start), max(a.cols.stop, b.cols.stop)))


def trace(windows: list[Window], out: Rect, sources: list[tuple[int, ...]] | None = None,
          tensors: list[int] | None = None) -> list[LayerPatch]:
    """The regions of every layer (first to last) that the stage's output region `out` needs. A chain by default;
    with `sources` (each layer's input tensors) and `tensors` (each layer's output), a graph: a tensor read by
    several layers is computed over the box of what they read."""
    tensors = tensors or list(range(len(windows)))
    sources = sources or [(t - 1,) for t in tensors]
    needed: dict[int, Rect] = {tensors[-1]: out}
    layers = []
    for window, reads, tensor in zip(reversed(windows), reversed(sources), reversed(tensors), strict=True):
        region = needed[tensor]
        (rows, top), (cols, left) = input_span(region.rows, 0, window), input_span(region.cols, 1, window)
        for source in reads:
            needed[source] = _box(needed.get(source), Rect(rows, cols))
        layers.append(LayerPatch(Rect(rows, cols), region, (top, left), (Rect(rows, cols),) * (len(reads) - 1)))
    return layers[::-1]


def split(size: int, parts: int) -> list[Span]:
    """`size` in `parts` spans as equal as they can be."""
    cuts = [round(i * size / parts) for i in range(parts + 1)]
    return [Span(a, b) for a, b in zip(cuts, cuts[1:], strict=False)]


@dataclass(frozen=True)
class PatchStage:
    """Operators at positions 0..last of graph.operators run patch by patch, the output of `last` in a grid."""

    positions: tuple[int, ...]  # the stage's steps, in order
    grid: tuple[int, int]  # rows x columns of patches
    windows: tuple[Window, ...]
    patches: tuple[tuple[LayerPatch, ...], ...]  # [patch][layer], patches in raster order
    input: int  # the tensor the stage reads (its first layer only)
    tensors: tuple[int, ...]  # the output tensor of every layer; the last is the stage's output
    sources: tuple[tuple[int, ...], ...] = ()  # the input tensors of every layer (a chain when empty)
    mode = "recompute"  # halos recomputed (ops/row_stage.py: kept in row buffers)

    def layer_patches(self, layer: int) -> list[LayerPatch]:
        """The geometry of `layer` in every patch."""
        return [p[layer] for p in self.patches]

    def reads(self, layer: int) -> tuple[int, ...]:
        return self.sources[layer] if self.sources else ((self.input,) if layer == 0 else (self.tensors[layer - 1],))

    def read_mode(self, layer: int, slot: int) -> str:
        """How `layer` reaches input `slot` (a tensor of the stage) in its producer's patch buffer: "direct" (the
        whole buffer), "rows" (some of its rows: a pointer into it), or "gather" (a rectangle, copied out)."""
        producer = self.tensors.index(self.reads(layer)[slot])
        pairs = [(self.read_region(p, layer, slot), p[producer].output) for p in self.patches]
        if all(need == box for need, box in pairs):
            return "direct"
        return "rows" if all(need.cols == box.cols for need, box in pairs) else "gather"

    @staticmethod
    def read_region(patch: tuple[LayerPatch, ...], layer: int, slot: int) -> Rect:
        return patch[layer].input if slot == 0 else patch[layer].extra[slot - 1]

    def box_of(self, patch: tuple[LayerPatch, ...], tensor: int) -> Rect:
        """The region of a stage tensor one patch computes (its patch buffer's contents)."""
        return patch[self.tensors.index(tensor)].output

    @property
    def last(self) -> int:
        return self.positions[-1]

    @property
    def label(self) -> str:
        return f"steps {self.positions[0]}..{self.last} in a {self.grid[0]}x{self.grid[1]} grid"

    def region_bytes(self, layer: int, channels: int, itemsize: int = 1) -> int:
        """The largest output region of `layer` over the patches, in bytes."""
        return max(p[layer].output.pixels for p in self.patches) * channels * itemsize

    def input_region_bytes(self, channels: int, itemsize: int = 1) -> int:
        return max(p[0].input.pixels for p in self.patches) * channels * itemsize

    def pixel_ratios(self) -> list[float]:
        """Per layer: output pixels computed over all patches / output pixels of the whole tensor (>= 1)."""
        return [sum(p[i].output.pixels for p in self.patches) / (w.out_size[0] * w.out_size[1])
                for i, w in enumerate(self.windows)]


def _whole_width(layer: LayerPatch, window: Window) -> LayerPatch:
    """The layer over whole rows: its columns those of the whole tensors, with their padding (the last columns
    computed as the whole layer computes them, even where a later VALID layer does not read them)."""
    full = Span(0, window.in_size[1])
    return LayerPatch(Rect(layer.input.rows, full), Rect(layer.output.rows, Span(0, window.out_size[1])),
                      (layer.pad[0], window.pad[1]), tuple(Rect(r.rows, full) for r in layer.extra))


def make_stage(positions: tuple[int, ...], windows: list[Window], grid: tuple[int, int], input_tensor: int,
               tensors: tuple[int, ...], sources: tuple[tuple[int, ...], ...] = ()) -> PatchStage:
    """The stage with every patch traced; refuses a grid larger than the stage's output."""
    height, width = windows[-1].out_size
    for parts, size, name in ((grid[0], height, "rows"), (grid[1], width, "columns")):
        if not 1 <= parts <= size:
            raise UserError(f"a patch grid of {grid[0]}x{grid[1]} does not fit the stage's output of {height}x{width}"
                            f": {parts} {name} of patches for {size} {name}")
    reads = list(sources) or [(input_tensor,), *((t,) for t in tensors[:-1])]
    patches = [trace(windows, Rect(rows, cols), reads, list(tensors)) for rows in split(height, grid[0])
               for cols in split(width, grid[1])]
    if grid[1] == 1:  # whole rows, read and written in place: every region spans its tensor's width
        patches = [[_whole_width(layer, window) for layer, window in zip(p, windows, strict=True)] for p in patches]
    return PatchStage(positions, grid, tuple(windows), tuple(tuple(p) for p in patches), input_tensor, tensors,
                      tuple(sources))


def used_later(graph: Graph, tensor: int, after: int) -> bool:
    """Whether `tensor` is read after step `after`, or is a graph output."""
    return tensor in graph.outputs or any(tensor in op.inputs for op in graph.operators[after + 1:])
