"""QEMU's execution trace, streamed: how many times each translated block ran, in a window and its segments.

QEMU logs with `-d in_asm,exec,nochain`: every block it translates ("IN:" and the address, bytes and text of each
instruction, once per translation) and every block it executes ("Trace 0: <host pointer> [../<pc>/../..] symbol",
once per execution; nochain makes every execution pass through the logger). The log goes through a FIFO and is
parsed line by line as QEMU writes it: a 10 M-instruction inference logs ~10^6 lines, never stored whole.

The window opens at the first entry of `begin` and closes at the first entry of `end` after it (the entry of a
function is a block starting at its address). Inside it, `segment_begin`/`segment_end` (optional) delimit numbered
segments (the model's steps: `fg_hook_step_begin` .. `fg_hook_step_end`, in the order they run); blocks outside any
segment count as segment -1. For every block the count of executions is kept, and how many of them fell through to
the next address (so a block ending in a branch knows how often it was taken).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from firmware_gen.errors import ToolchainError
from firmware_gen.link.qemu import kill_process_group

TRACE_FLAGS = ("-d", "in_asm,exec,nochain")
OUTSIDE_SEGMENTS = -1


@dataclass(frozen=True)
class Block:
    """A translated block: its code is [pc, end). QEMU's own listing is used for the bounds only (its disassembler
    does not know MVE and splits those instructions); the instructions come from the ELF's disassembly."""

    pc: int
    end: int  # the address after its last instruction (where it falls through to)


@dataclass
class SegmentCounts:
    executions: dict[int, int] = field(default_factory=dict)  # block id -> times run
    fallthroughs: dict[int, int] = field(default_factory=dict)  # block id -> times the next block was at its end


@dataclass
class TraceCounts:
    blocks: dict[int, Block]  # block id -> block
    segments: dict[int, SegmentCounts]  # segment number (OUTSIDE_SEGMENTS: in the window, outside every segment)
    closed: bool  # the window's end was reached

    def executions(self) -> dict[int, int]:
        """Block id -> times run in the whole window."""
        total: dict[int, int] = {}
        for counts in self.segments.values():
            for block_id, runs in counts.executions.items():
                total[block_id] = total.get(block_id, 0) + runs
        return total


@dataclass(frozen=True)
class Markers:
    begin: int
    end: int
    segment_begin: int | None = None
    segment_end: int | None = None


def _instruction_line(line: bytes) -> tuple[int, int] | None:
    """(address, size in bytes) of one in_asm line ("0x0000087c:  f441 0170  orr ..."), None if not one."""
    if not line.startswith(b"0x"):
        return None
    address, _, rest = line.partition(b":")
    words = rest.split()
    halfwords = 0
    for word in words:
        if len(word) != 4 or not all(c in b"0123456789abcdef" for c in word):
            break
        halfwords += 1
    try:
        return int(address, 16), 2 * max(1, halfwords)
    except ValueError:
        return None


class _Parser:
    def __init__(self, markers: Markers) -> None:
        self.markers = markers
        self.blocks: dict[int, Block] = {}
        self.by_pointer: dict[bytes, int] = {}
        self.segments: dict[int, SegmentCounts] = {}
        self.pending: list[tuple[int, int]] = []  # the instructions of the translation being listed
        self.unbound: Block | None = None  # translated, waiting for its first execution to learn its pointer
        self.state = "before"  # before, inside, after
        self.segment = OUTSIDE_SEGMENTS
        self.next_segment = 0
        self.last: tuple[int, SegmentCounts] | None = None  # (block id, counts) of the last block counted

    def _close_listing(self) -> None:
        if self.pending:
            address, size = self.pending[-1]
            self.unbound = Block(self.pending[0][0], address + size)
            self.pending = []

    def _block_id(self, pointer: bytes, pc: int) -> int | None:
        if self.unbound is not None and self.unbound.pc == pc:
            block_id = len(self.blocks)
            self.blocks[block_id] = self.unbound
            self.by_pointer[pointer] = block_id
            self.unbound = None
            return block_id
        return self.by_pointer.get(pointer)

    def _enter(self, pc: int) -> None:
        markers = self.markers
        if self.state == "before" and pc == markers.begin:
            self.state = "inside"
        elif self.state == "inside" and pc == markers.end:
            self.state = "after"
        elif self.state == "inside" and pc == markers.segment_begin:
            self.segment, self.next_segment = self.next_segment, self.next_segment + 1
        elif self.state == "inside" and pc == markers.segment_end:
            self.segment = OUTSIDE_SEGMENTS

    def trace(self, line: bytes) -> None:
        self._close_listing()
        head, _, rest = line.partition(b" [")
        pointer = head.rsplit(b" ", 1)[-1]
        pc = int(rest.split(b"/", 2)[1], 16)
        block_id = self._block_id(pointer, pc)
        if self.last is not None:
            last_id, last_counts = self.last
            if self.blocks[last_id].end == pc:
                last_counts.fallthroughs[last_id] = last_counts.fallthroughs.get(last_id, 0) + 1
            self.last = None
        self._enter(pc)
        if self.state != "inside" or block_id is None:
            return
        counts = self.segments.get(self.segment)
        if counts is None:
            counts = self.segments[self.segment] = SegmentCounts()
        counts.executions[block_id] = counts.executions.get(block_id, 0) + 1
        self.last = (block_id, counts)

    def rewound(self, line: bytes) -> None:
        """QEMU stopped the last block before an I/O access and runs the rest again as a new block: only the
        instructions before that address ran in it."""
        if self.last is None:
            return
        last_id, counts = self.last
        stop = int(line.rsplit(b" ", 1)[-1], 16)
        block = self.blocks[last_id]
        counts.executions[last_id] -= 1
        self.last = None
        if stop > block.pc:
            part_id = len(self.blocks)
            self.blocks[part_id] = Block(block.pc, stop)
            counts.executions[part_id] = 1

    def stopped(self) -> None:
        """QEMU logged the last block but did not start it (the instruction budget ran out); it runs it again."""
        if self.last is not None:
            last_id, counts = self.last
            counts.executions[last_id] -= 1
            self.last = None

    def feed(self, line: bytes) -> None:
        if line.startswith(b"Trace "):
            self.trace(line)
        elif line.startswith(b"0x"):
            parsed = _instruction_line(line)
            if parsed is not None:
                self.pending.append(parsed)
        elif line.startswith(b"IN:"):
            self._close_listing()
        elif line.startswith(b"cpu_io_recompile: rewound"):
            self.rewound(line.strip())
        elif line.startswith(b"Stopped execution of TB chain"):
            self.stopped()

    def result(self) -> TraceCounts:
        return TraceCounts(self.blocks, self.segments, self.state == "after")


def count_blocks(lines: Iterable[bytes], markers: Markers) -> TraceCounts:
    """The counts of a whole trace (lines of QEMU's log)."""
    parser = _Parser(markers)
    for line in lines:
        parser.feed(line)
    return parser.result()


class TraceReader:
    """A FIFO QEMU logs into, read by a thread while QEMU runs: `with TraceReader(dir, markers) as reader:` pass
    reader.qemu_flags to QEMU; after QEMU has exited, reader.counts() is the result."""

    def __init__(self, scratch: Path, markers: Markers) -> None:
        self.path = scratch / "exec.fifo"
        self.markers = markers
        self._result: TraceCounts | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._read, name="qemu-exec-trace", daemon=True)

    @property
    def qemu_flags(self) -> list[str]:
        return [*TRACE_FLAGS, "-D", str(self.path)]

    def _read(self) -> None:
        try:
            with self.path.open("rb", buffering=1 << 20) as fifo:
                self._result = count_blocks(fifo, self.markers)
        except BaseException as error:  # noqa: BLE001 - handed to the caller of counts()
            self._error = error

    def __enter__(self) -> TraceReader:
        os.mkfifo(self.path)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._thread.is_alive():
            # QEMU never opened the log (it did not start), or has not closed it: open the write end ourselves so
            # that the reader's open returns, and wait for the reader to see the end.
            with contextlib.suppress(OSError):
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            self._thread.join(timeout=60)

    def counts(self) -> TraceCounts:
        """The window's counts; a trace whose window never closed (QEMU cut short) is an error, not an estimate."""
        self._thread.join(timeout=600)
        if self._error is not None:
            raise ToolchainError(f"reading QEMU's execution trace failed: {self._error}")
        if self._result is None or not self._result.closed:
            raise ToolchainError("QEMU's execution trace ended before the timed region did (the run was cut "
                                 "short): no cycle estimate")
        return self._result


def run_traced(command: list[str], markers: Markers, timeout: float) -> tuple[TraceCounts, str]:
    """Run a QEMU command line (without -d/-D) to its end with the trace on: the window's counts and what QEMU
    wrote on stdout. A run that fails or times out is an error (no partial counts)."""
    with tempfile.TemporaryDirectory(prefix="fg-trace-") as scratch, TraceReader(Path(scratch), markers) as reader:
        process = subprocess.Popen([*command, *reader.qemu_flags], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ToolchainError(f"QEMU ran longer than {timeout:g} s: no cycle estimate") from None
        finally:
            kill_process_group(process)
        if process.returncode != 0:
            tail = output.decode(errors="replace").strip().splitlines()[-3:]
            raise ToolchainError(f"QEMU exited with status {process.returncode} ({' | '.join(tail)}): "
                                 "no cycle estimate")
        return reader.counts(), output.decode(errors="replace")
