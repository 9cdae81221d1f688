"""The compiler's own account of every function's stack frame and calls: the `.ci` file gcc writes beside an object
compiled with `-fcallgraph-info=su` (a VCG graph; the same frame sizes `-fstack-usage` writes to `.su`).

A node is a function defined in the object (`name\\nfile:line:col\\nN bytes (static|dynamic|dynamic,bounded)`) or
one it calls (no size); an edge is a call, to `__indirect_call` when through a pointer. A function local to its
file is titled `path:name`: it is named `name@file` here (the file's base name, as the ELF's symbol table names
the file of a local symbol), so that what is read depends on no folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

CALLGRAPH_FLAG = "-fcallgraph-info=su"
INDIRECT = "__indirect_call"
_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
_FRAME = re.compile(r"\\n(\d+) bytes \(([a-z,]+)\)$")


@dataclass(frozen=True)
class FunctionFrame:
    name: str  # the C name, `name@object` for a file-local function
    bytes: int
    bounded: bool  # False: the frame grows at run time (alloca, a variable-length array)


@dataclass
class ObjectCallGraph:
    """What one object defines and calls; callee names are resolved like the definitions (local first)."""

    frames: dict[str, FunctionFrame] = field(default_factory=dict)
    calls: dict[str, set[str]] = field(default_factory=dict)  # caller -> callee names (INDIRECT for a pointer)


def _local_name(title: str) -> str:
    """A title `path:name` (a file-local function) as `name@file`; a global name unchanged."""
    if ":" not in title:
        return title
    path, name = title.rsplit(":", 1)
    return f"{name}@{Path(path).name}"


def parse_call_graph(text: str) -> ObjectCallGraph:
    graph = ObjectCallGraph()
    for title, label in _NODE.findall(text):
        found = _FRAME.search(label)
        if found:
            name = _local_name(title)
            qualifier = found.group(2)
            graph.frames[name] = FunctionFrame(name, int(found.group(1)), qualifier != "dynamic")
    for source, target in _EDGE.findall(text):
        caller = _local_name(source)
        callee = INDIRECT if target == INDIRECT else _local_name(target)
        if ":" in target and callee not in graph.frames:
            callee = target.rsplit(":", 1)[1]  # a weak or local declaration defined elsewhere: by its name
        graph.calls.setdefault(caller, set()).add(callee)
    return graph


def read_call_graph(ci_file: Path) -> ObjectCallGraph:
    return parse_call_graph(ci_file.read_text())


def merge(graphs: list[ObjectCallGraph]) -> ObjectCallGraph:
    """One graph of a whole program. A name defined in two objects (a weak default and the board's definition)
    keeps the larger frame and the calls of both: the bound holds whichever the linker keeps."""
    merged = ObjectCallGraph()
    for graph in graphs:
        for name, frame in graph.frames.items():
            known = merged.frames.get(name)
            if known is None or (frame.bytes, not frame.bounded) > (known.bytes, not known.bounded):
                merged.frames[name] = frame
        for caller, callees in graph.calls.items():
            merged.calls.setdefault(caller, set()).update(callees)
    return merged
