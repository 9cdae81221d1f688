"""Patch-based execution with halos kept in row buffers instead of recomputed (issue 24): the schedule.

The stage's layers run on full-width rows, top to bottom, pulled by the stage's last layer one output row at a
time: a layer computes the rows its readers need next that it has not computed yet (each row exactly once), after
its inputs' producers did the same. Every intermediate tensor of the stage lives in a buffer of only the rows its
readers still need (a 3x3 reader: three rows; a 1x1 reader: one): before a layer writes new rows, the rows its
readers still need are moved to the buffer's start (`RowCall.keep`) and the new rows follow them. The stage's input
is read in place, its output written in place, both whole tensors. Nothing is recomputed: the extra work is one
kernel call per call instead of one per layer, and the rows moved.

The schedule is simulated here at generation time; the result is a list of calls (layer, geometry, the row each
input is read from in its buffer, the row written, the rows kept) and each buffer's capacity in rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_gen.ops.patch_stage import LayerPatch, Rect, Span, Window, input_span

_DONE = 1 << 30  # the first row a reader that has computed all of its rows still needs: none


@dataclass(frozen=True)
class RowCall:
    """One kernel call: `layer` computes the rows patch.output of its output tensor."""

    layer: int
    patch: LayerPatch  # the call's geometry (full-width rectangles of the whole tensors)
    reads: tuple[int, ...]  # per input slot: the row of its buffer the read starts at (the stage input: its row)
    write: int  # the row of the output buffer written first (the stage output: its row)
    keep: tuple[int, int]  # (first row, rows) of the output buffer moved to its start before the write


@dataclass(frozen=True)
class RowStage:
    """Operators at positions 0..last of graph.operators run in row buffers."""

    positions: tuple[int, ...]
    windows: tuple[Window, ...]
    input: int
    tensors: tuple[int, ...]
    sources: tuple[tuple[int, ...], ...]
    calls: tuple[RowCall, ...]
    capacity: tuple[int, ...]  # per layer: the rows its output buffer holds (the last layer: its whole tensor)
    mode = "rows"

    @property
    def grid(self) -> tuple[int, int]:
        return self.windows[-1].out_size[0], 1

    @property
    def last(self) -> int:
        return self.positions[-1]

    @property
    def label(self) -> str:
        return (f"steps {self.positions[0]}..{self.last} in row buffers, {len(self.calls)} calls, "
                f"{self.grid[0]} output rows")

    def reads(self, layer: int) -> tuple[int, ...]:
        return self.sources[layer]

    def layer_patches(self, layer: int) -> list[LayerPatch]:
        """The geometry of every call of `layer`."""
        return [call.patch for call in self.calls if call.layer == layer]

    def row_bytes(self, layer: int, channels: int, itemsize: int = 1) -> int:
        return self.windows[layer].out_size[1] * channels * itemsize

    def buffer_bytes(self, layer: int, channels: int, itemsize: int = 1) -> int:
        return self.capacity[layer] * self.row_bytes(layer, channels, itemsize)

    def moved_rows(self) -> list[int]:
        """Per layer: the rows moved in its output buffer over the stage."""
        moved = [0] * len(self.windows)
        for call in self.calls:
            moved[call.layer] += call.keep[1]
        return moved


class _Scheduler:
    """The pull schedule of one stage (see the module's docstring)."""

    def __init__(self, windows: list[Window], sources: list[tuple[int, ...]], tensors: list[int], source: int):
        self.windows, self.sources, self.source = windows, sources, source
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
            for row in range(max(self.done[layer], rows.start) if skip else self.done[layer], rows.stop):
                self.produce(layer, Span(row, row + 1))  # one row a call: a buffer holds one window's rows

    def produce(self, layer: int, out: Span) -> None:
        window = self.windows[layer]
        rows, pad_top = input_span(out, 0, window)
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
            kept_from = min((self.first_needed(r) for r in self.readers[self.tensors[layer]]), default=_DONE)
            kept_from = max(kept_from, self.low[layer])
            if kept_from >= self.done[layer]:
                self.low[layer] = out.start
            else:
                keep = (kept_from - self.low[layer], self.done[layer] - kept_from)
                self.low[layer] = kept_from
            write = out.start - self.low[layer]
            self.capacity[layer] = max(self.capacity[layer], out.stop - self.low[layer])
        full_in, full_out = Span(0, window.in_size[1]), Span(0, window.out_size[1])
        patch = LayerPatch(Rect(rows, full_in), Rect(out, full_out), (pad_top, window.pad[1]),
                           (Rect(rows, full_in),) * (len(self.sources[layer]) - 1))
        self.calls.append(RowCall(layer, patch, tuple(reads), write, keep))
        self.done[layer] = out.stop


def make_row_stage(positions: tuple[int, ...], windows: list[Window], input_tensor: int, tensors: tuple[int, ...],
                   sources: tuple[tuple[int, ...], ...]) -> RowStage:
    """The stage's row schedule: its last layer pulled one output row at a time."""
    reads = list(sources) or [(input_tensor,), *((t,) for t in tensors[:-1])]
    scheduler = _Scheduler(windows, reads, list(tensors), input_tensor)
    last = len(windows) - 1
    for row in range(windows[-1].out_size[0]):
        scheduler.produce(last, Span(row, row + 1))
    capacity = [*scheduler.capacity[:-1], windows[-1].out_size[0]]
    return RowStage(positions, tuple(windows), input_tensor, tensors, tuple(reads), tuple(scheduler.calls),
                    tuple(capacity))
