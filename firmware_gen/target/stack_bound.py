"""The worst-case stack of a linked firmware, from the compiler's frames and calls (call_graph_info) completed by
the ELF (thumb_code): the deepest chain of frames from the reset handler, the model's entry and the exception
handlers. A function's frame is the larger of gcc's and the ELF's sum of its pushes and stack reservations: gcc
leaves out what inline assembly pushes (all of a naked function's frame).

Calls through a pointer are resolved from what the program stores, never guessed: the model's step table
(`fg_model_registry`, the schedule of the packed interface) is what `fg_model_call_step` calls; any other indirect
call (a blocked kernel's window walk, a pooling kernel's window operation, stored in a parameter struct or passed
as an argument) may reach any function whose address is stored anywhere but in the step table and the vector
table. The program runs on the process stack and the handlers on the main stack (runtime_c/ports/startup.c): an
exception taken while the program runs pushes its frame on the process stack (8 words, 26 with the FPU's lazily
stacked registers, plus a word of alignment), so that frame is added on top of the deepest path. A recursion, an
indirect call with no possible target, a frame that grows at run time (unless the generator sized its growth for
this model: the manifest's run_time_frames) or a function of unknown frame is named in `problems`: the bound then
holds only for the paths it covers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from firmware_gen.target.call_graph_info import INDIRECT, ObjectCallGraph
from firmware_gen.target.thumb_code import ThumbImage

EXCEPTION_FRAME_BYTES = 32 + 4  # r0-r3, r12, lr, pc, xPSR, and the word the core may add to align the stack to 8
FP_EXCEPTION_FRAME_BYTES = 104 + 4  # the same and s0-s15, FPSCR, a reserved word
VECTOR_TABLE = "fg_vector_table"
EXCEPTION_ENTRY = "(exception entry)"


@dataclass(frozen=True)
class StackPath:
    bytes: int
    calls: tuple[tuple[str, int], ...]  # (function, its frame bytes) from the entry down

    def describe(self) -> str:
        return " > ".join(f"{name} ({size})" for name, size in self.calls)

    def on_top(self, name: str, size: int) -> StackPath:
        return StackPath(self.bytes + size, ((name, size), *self.calls))

    def to_json(self) -> dict:
        return {"bytes": self.bytes, "path": [{"function": n, "bytes": b} for n, b in self.calls]}


@dataclass(frozen=True)
class StackBound:
    thread: StackPath  # the program's stack: the deepest path from reset, an exception frame on top
    handler: StackPath  # the handlers' stack: the deepest handler, an exception frame (a fault in it) on top
    model: StackPath | None  # from the model's run entry down (what an application calling it needs)
    problems: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return not self.problems

    def to_json(self) -> dict:
        return {"thread": self.thread.to_json(), "handler": self.handler.to_json(),
                "model": self.model.to_json() if self.model else None, "problems": list(self.problems)}


@dataclass
class _Walker:
    graph: ObjectCallGraph
    image: ThumbImage
    registry: str
    registry_callers: frozenset[str]
    run_time_frames: Mapping[str, int]
    problems: list[str] = field(default_factory=list)
    _done: dict[str, StackPath] = field(default_factory=dict)

    def note(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)

    def frame(self, name: str, caller: str) -> int:
        known = self.graph.frames.get(name)
        code = self.image.functions.get(name)
        if known is not None:
            if known.bounded:
                # gcc's frame leaves out what inline assembly pushes or reserves (a naked function's whole frame);
                # the ELF's count of every push and reservation in the body includes it.
                return max(known.bytes, code.frame_bytes if code is not None else 0)
            if name in self.run_time_frames:
                return known.bytes + self.run_time_frames[name]
            self.note(f"the frame of {name} grows at run time (alloca or a variable-length array)")
            return known.bytes
        if code is None:
            self.note(f"{name} (called by {caller}) is in neither the call graph nor the ELF")
            return 0
        return code.frame_bytes

    def _stored(self, name: str, holders: frozenset[str]) -> set[str]:
        """Where name's address is stored as a pointer: not in the literal pool of a function that calls it directly
        (gcc -Os loads a function called several times into a register once: a direct call in its graph)."""
        return {h for h in holders if name not in self.graph.calls.get(h, ())}

    def _indirect_targets(self, caller: str) -> set[str]:
        from_registry = caller in self.registry_callers
        targets = {name for name, holders in self.image.address_taken.items()
                   if VECTOR_TABLE not in holders and (self.registry in holders if from_registry
                                                       else bool(self._stored(name, holders) - {self.registry}))}
        if not targets:
            self.note(f"an indirect call in {caller} has no possible target (no stored function address)")
        return targets

    def callees(self, name: str) -> set[str]:
        called = set(self.graph.calls.get(name, ()))
        code = self.image.functions.get(name)
        if code is not None:
            called |= code.calls  # the library calls gcc adds after its graph (__aeabi_*), tail calls of asm
        if INDIRECT in called:
            called = (called - {INDIRECT}) | self._indirect_targets(name)
        for local in [c for c in called if "@" in c]:  # a weak default the linker may have replaced
            if local.split("@")[0] in self.graph.frames:
                called.add(local.split("@")[0])
        return called

    def deepest(self, name: str, caller: str = "", active: tuple[str, ...] = ()) -> StackPath:
        if name in self._done:
            return self._done[name]
        size = self.frame(name, caller)
        below = StackPath(0, ())
        for callee in sorted(self.callees(name)):
            if callee in active or callee == name:
                cycle = [*active[active.index(callee):], name, callee] if callee in active else [name, callee]
                self.note("recursion: " + " > ".join(cycle))
                continue
            path = self.deepest(callee, name, (*active, name))
            if path.bytes > below.bytes:
                below = path
        self._done[name] = result = below.on_top(name, size)
        return result


def stack_bound(graph: ObjectCallGraph, image: ThumbImage, symbols: Mapping[str, str], fpu: bool,
                run_time_frames: Mapping[str, int] = MappingProxyType({})) -> StackBound:
    """The bound of a firmware: graph (the merged call graphs of its objects), image (its ELF), symbols (the
    manifest's model symbols by role: run, registry, call_step), fpu (exceptions stack the FP registers),
    run_time_frames (what the generator says a kernel's frame grows by at run time, at most, in this model)."""
    walker = _Walker(graph, image, symbols.get("registry", ""), frozenset({symbols.get("call_step", "")}),
                     run_time_frames)
    exception = FP_EXCEPTION_FRAME_BYTES if fpu else EXCEPTION_FRAME_BYTES
    handlers = sorted(n for n, holders in image.address_taken.items() if VECTOR_TABLE in holders and n != image.entry)
    worst_handler = max((walker.deepest(h) for h in handlers), key=lambda p: p.bytes, default=StackPath(0, ()))
    thread = walker.deepest(image.entry) if image.entry else StackPath(0, ())
    if not image.entry:
        walker.note("the ELF's entry point is no function")
    run = symbols.get("run", "")
    model = walker.deepest(run) if run in graph.frames else None
    return StackBound(_with_exception(thread, exception), _with_exception(worst_handler, exception), model,
                      tuple(walker.problems))


def _with_exception(path: StackPath, exception: int) -> StackPath:
    return StackPath(path.bytes + exception, (*path.calls, (EXCEPTION_ENTRY, exception)))


def read_stack_bound(elf: Path, ci_files: list[Path], symbols: Mapping[str, str], fpu: bool,
                     run_time_frames: Mapping[str, int] = MappingProxyType({})) -> StackBound:
    from firmware_gen.target.call_graph_info import merge, read_call_graph
    from firmware_gen.target.thumb_code import read_thumb_image

    return stack_bound(merge([read_call_graph(f) for f in ci_files]), read_thumb_image(elf), symbols, fpu,
                       run_time_frames)
