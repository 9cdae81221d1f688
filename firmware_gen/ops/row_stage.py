"""Patch-based execution with halos kept in row buffers instead of recomputed (issue 24): the schedule.

The stage's layers run on full-width rows, top to bottom, pulled by the stage's last layer one output row at a
time: a layer computes the rows its readers need next that it has not computed yet (each row exactly once), after
its inputs' producers did the same. Every intermediate tensor of the stage lives in a buffer of only the rows its
readers still need (a 3x3 reader: three rows; a 1x1 reader: one): before a layer writes new rows, the rows its
readers still need are moved to the buffer's start (`RowCall.keep`) and the new rows follow them. The stage's input
is read in place, its output written in place, both whole tensors. Nothing is recomputed: the extra work is one
kernel call per call instead of one per layer, and the rows moved.

With `strips` > 1 the stage's output is split into that many column strips, each run so in turn: the columns of
every tensor a strip needs are traced back through the windows (ops/patch_stage.py) and their halos recomputed by
the neighbouring strip, the rows still kept. A strip's buffers hold its columns only; its first layer reads its
input rows from a copy (`patch input`); its last layer writes each output row in place (one row of a strip is
contiguous). A tensor read by two layers over different columns (a residual block's input) is computed over the
wider; the narrower read copies its rectangle out (`gathered`).

The schedule is simulated here at generation time; the result is a list of calls (layer, strip, geometry, the row
each input is read from in its buffer, the row written, the rows kept) and each buffer's capacity.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.errors import UserError
from firmware_gen.ops.patch_stage import LayerPatch, Rect, Span, Window, input_span, split, trace

_DONE = 1 << 30  # the first row a reader that has computed all of its rows still needs: none


@dataclass(frozen=True)
class RowCall:
    """One kernel call: `layer` computes the rows patch.output of its output tensor, over the strip's columns."""

    layer: int
    patch: LayerPatch  # the call's geometry (rectangles of the whole tensors)
    reads: tuple[int, ...]  # per input slot: the row of its buffer the read starts at (the stage input: its row)
    write: int  # the row of the output buffer written first (the stage output: its row)
    keep: tuple[int, int]  # (first row, rows) of the output buffer moved to its start before the write
    strip: int = 0
    buffers: tuple[tuple[int, int], ...] = ()  # per input slot: (its first column, the columns) in its buffer


@dataclass(frozen=True)
class RowStage:
    """Operators at positions 0..last of graph.operators run in row buffers, in `strips` column strips."""

    positions: tuple[int, ...]
    windows: tuple[Window, ...]
    input: int
    tensors: tuple[int, ...]
    sources: tuple[tuple[int, ...], ...]
    calls: tuple[RowCall, ...]
    capacity: tuple[int, ...]  # per layer: the rows its output buffer holds (the last layer: its whole tensor)
    pixels: tuple[int, ...]  # per layer: the pixels its output buffer holds (rows x the widest strip's columns)
    strips: int = 1
    batch: tuple[int, ...] = ()  # per layer: the rows a call computes at most
    gathered: frozenset[tuple[int, int]] = frozenset()  # (layer, slot): a narrower rectangle of a buffer, copied
    mode = "rows"

    @property
    def grid(self) -> tuple[int, int]:
        return self.windows[-1].out_size[0], self.strips

    @property
    def last(self) -> int:
        return self.positions[-1]

    @property
    def label(self) -> str:
        strips = f" in {self.strips} column strips" if self.strips > 1 else ""
        batch = f", up to {max(self.batch)} rows a call" if max(self.batch, default=1) > 1 else ""
        return f"steps {self.positions[0]}..{self.last} in row buffers{strips}{batch}, {len(self.calls)} calls"

    @property
    def spec(self) -> str:
        """As --patch-stage writes it after the operator: rows[xSTRIPS][/BATCH]."""
        batch = max(self.batch, default=1)
        return "rows" + (f"x{self.strips}" if self.strips > 1 else "") + (f"/{batch}" if batch > 1 else "")

    def reads(self, layer: int) -> tuple[int, ...]:
        return self.sources[layer]

    def layer_patches(self, layer: int) -> list[LayerPatch]:
        """The geometry of every call of `layer`."""
        return [call.patch for call in self.calls if call.layer == layer]

    def buffer_bytes(self, layer: int, channels: int) -> int:
        return self.pixels[layer] * channels

    def input_region_pixels(self) -> int:
        """The largest input region a call of the first layer reads (gathered when there are column strips)."""
        return max(p.input.pixels for p in self.layer_patches(0))

    def output_overlap(self, in_row_bytes: int, out_row_bytes: int) -> int:
        """How many bytes of the stage's input its output may overlap, placed just below it (one full-width strip):
        the input is read top to bottom and the output written top to bottom, and each output row is written where
        no input row still to be read lies. 0 with column strips (every strip reads the input again)."""
        if self.strips > 1:
            return 0
        height = self.windows[-1].out_size[0]
        first_read = self.windows[0].in_size[0]  # the first input row a call from here on reads
        allowed = height * out_row_bytes
        for call in reversed(self.calls):
            for tensor, row in zip(self.reads(call.layer), call.reads, strict=True):
                if tensor == self.input:
                    first_read = min(first_read, row)
            if call.layer == len(self.windows) - 1:
                written = call.patch.output.rows.stop * out_row_bytes
                allowed = min(allowed, first_read * in_row_bytes - written + height * out_row_bytes)
        return max(allowed, 0)

    def gather_pixels(self, layer: int, slot: int) -> int:
        """The largest rectangle a call of `layer` copies out of the buffer it reads at `slot`."""
        return max((p.input if slot == 0 else p.extra[slot - 1]).pixels for p in self.layer_patches(layer))

    def moved_pixels(self) -> list[int]:
        """Per layer: the pixels moved in its output buffer over the stage."""
        moved = [0] * len(self.windows)
        for call in self.calls:
            moved[call.layer] += call.keep[1] * call.patch.output.cols.size
        return moved


class _Scheduler:
    """The pull schedule of one strip (see the module's docstring); `columns` its traced regions per layer."""

    def __init__(self, windows: list[Window], sources: list[tuple[int, ...]], tensors: list[int], source: int,
                 columns: list[LayerPatch], strip: int, batch: tuple[int, ...]):
        self.windows, self.sources, self.source, self.columns, self.strip = windows, sources, source, columns, strip
        self.batch = batch
        self.producer = {t: i for i, t in enumerate(tensors)}
        self.readers = {t: [i for i, reads in enumerate(sources) if t in reads] for t in tensors}
        self.tensors = tensors
        self.done = [0] * len(windows)  # rows computed, per layer
        self.low = [0] * len(windows)  # the first row its output buffer holds
        self.capacity = [0] * len(windows)
        self.calls: list[RowCall] = []

    def first_needed(self, reader: int) -> int:
        window = self.windows[reader]
        if self.done[reader] >= window.out_size[0]:
            return _DONE
        return input_span(Span(self.done[reader], self.done[reader] + 1), 0, window)[0].start

    def ensure(self, tensor: int, rows: Span) -> None:
        layer = self.producer[tensor]
        if rows.stop > self.done[layer]:
            # Rows a reader skips (a 1x1 window of stride 2) are not computed, unless another reader may want them.
            skip = len(self.readers[tensor]) == 1
            start, batch = max(self.done[layer], rows.start) if skip else self.done[layer], self.batch[layer]
            stop = min(max(rows.stop, start + batch), self.windows[layer].out_size[0])  # a batch computed ahead
            for row in range(start, stop, batch):  # a buffer holds one window's rows, and a batch
                self.produce(layer, Span(row, min(row + batch, stop)))

    def _keep(self, layer: int, out: Span) -> tuple[int, int]:
        """Moves the output buffer's low row to the first row a reader still needs; the rows kept."""
        kept_from = min((self.first_needed(r) for r in self.readers[self.tensors[layer]]), default=_DONE)
        kept_from = max(kept_from, self.low[layer])
        if kept_from >= self.done[layer]:
            self.low[layer] = out.start
            return 0, 0
        if kept_from == self.low[layer]:
            return 0, 0  # the rows kept are at the buffer's start already
        keep = (kept_from - self.low[layer], self.done[layer] - kept_from)
        self.low[layer] = kept_from
        return keep

    def _buffers(self, layer: int) -> tuple[tuple[int, int], ...]:
        """Per input slot of `layer`: where its columns start in the buffer it reads, and the buffer's columns."""
        found = []
        for tensor, need in zip(self.sources[layer], (self.columns[layer].input, *self.columns[layer].extra),
                                strict=True):
            box = need.cols if tensor == self.source else self.columns[self.producer[tensor]].output.cols
            found.append((need.cols.start - box.start, box.size))
        return tuple(found)

    def produce(self, layer: int, out: Span) -> None:
        rows, pad_top = input_span(out, 0, self.windows[layer])
        for tensor in self.sources[layer]:
            if tensor != self.source:
                self.ensure(tensor, rows)
        reads = []
        for tensor in self.sources[layer]:
            held = 0 if tensor == self.source else self.low[self.producer[tensor]]
            if tensor != self.source:
                assert held <= rows.start and rows.stop <= self.done[self.producer[tensor]], "a row read is not held"
            reads.append(rows.start - held)
        keep = (0, 0)
        if layer == len(self.windows) - 1:
            write = out.start
        else:
            keep = self._keep(layer, out)
            write = out.start - self.low[layer]
            self.capacity[layer] = max(self.capacity[layer], out.stop - self.low[layer])
        cols = self.columns[layer]
        patch = LayerPatch(Rect(rows, cols.input.cols), Rect(out, cols.output.cols), (pad_top, cols.pad[1]),
                           tuple(Rect(rows, extra.cols) for extra in cols.extra))
        self.calls.append(RowCall(layer, patch, tuple(reads), write, keep, self.strip, self._buffers(layer)))
        self.done[layer] = out.stop


def _strip_columns(windows: list[Window], reads: list[tuple[int, ...]], tensors: tuple[int, ...],
                   strips: int) -> tuple[list[list[LayerPatch]], frozenset[tuple[int, int]]]:
    """Per strip, per layer: the columns it reads and computes (full width with one strip); and the (layer, slot)
    reads of fewer columns than the strip computes of that tensor (a residual block), copied out. A layer may have
    one such read."""
    height, width = windows[-1].out_size
    if not 1 <= strips <= width:
        raise UserError(f"{strips} column strips do not fit the stage's output of {height}x{width}: {strips} "
                        f"columns of patches for {width} columns")
    if strips == 1:
        return [[LayerPatch(Rect(Span(0, 1), Span(0, w.in_size[1])), Rect(Span(0, 1), Span(0, w.out_size[1])),
                            (0, w.pad[1]), (Rect(Span(0, 1), Span(0, w.in_size[1])),) * (len(r) - 1))
                 for w, r in zip(windows, reads, strict=True)]], frozenset()
    if len(reads[0]) > 1:
        raise UserError("row buffers in column strips: the first layer reads the stage's input twice")
    columns = [trace(windows, Rect(Span(0, height), cols), reads, list(tensors)) for cols in split(width, strips)]
    gathered = set()
    for strip in columns:
        for layer, layer_reads in enumerate(reads):
            needs = [strip[layer].input, *strip[layer].extra]
            for slot, (tensor, need) in enumerate(zip(layer_reads, needs, strict=True)):
                if tensor in tensors and need.cols != strip[tensors.index(tensor)].output.cols:
                    gathered.add((layer, slot))
    if len({layer for layer, _ in gathered}) < len(gathered):
        raise UserError("row buffers in column strips: a layer reads narrower rectangles of two buffers")
    return columns, frozenset(gathered)


def make_row_stage(positions: tuple[int, ...], windows: list[Window], input_tensor: int, tensors: tuple[int, ...],
                   sources: tuple[tuple[int, ...], ...], strips: int = 1, batch: int = 1) -> RowStage:
    """The stage's row schedule: its last layer pulled one output row at a time, strip after strip; the layers of
    the stage's highest resolution compute up to `batch` rows a call (fewer calls, a few more rows held), the others
    one."""
    reads = list(sources) or [(input_tensor,), *((t,) for t in tensors[:-1])]
    top = max(w.out_size[0] for w in windows)
    batches = tuple(batch if w.out_size[0] == top else 1 for w in windows)
    calls: list[RowCall] = []
    capacity, pixels = [0] * len(windows), [0] * len(windows)
    strip_columns, gathered = _strip_columns(windows, reads, tensors, strips)
    for strip, columns in enumerate(strip_columns):
        scheduler = _Scheduler(windows, reads, list(tensors), input_tensor, columns, strip, batches)
        for row in range(windows[-1].out_size[0]):
            scheduler.produce(len(windows) - 1, Span(row, row + 1))
        calls += scheduler.calls
        for layer, rows in enumerate(scheduler.capacity):
            capacity[layer] = max(capacity[layer], rows)
            pixels[layer] = max(pixels[layer], rows * columns[layer].output.cols.size)
    height, width = windows[-1].out_size
    capacity[-1], pixels[-1] = height, height * width
    return RowStage(positions, tuple(windows), input_tensor, tensors, tuple(reads), tuple(calls), tuple(capacity),
                    tuple(pixels), strips, batches, gathered)
