"""The runtime kernels a generated model needs: the files of runtime_c/kernels (by family) that define the functions
its code
calls, and the files those call in turn. A model of three operators then carries, and a first build compiles,
a handful of kernel files rather than all of them.

The runtime's C text is read, not compiled. A kernel function is defined at the start of a line, by a C definition
or by a kernel-defining macro (`FG_CAST_KERNEL(fg_cast_s8_s32, ...)`); it is used wherever its name appears once
comments and prototypes are removed (a call, or a function pointer in a parameter struct), in a kernel file or in
the runtime headers it includes (their inline functions). Reading more than the preprocessor keeps (both sides of
an #if) only adds a file the linker then drops. tests/test_runtime_closure.py checks the reading against the symbol
tables of every kernel compiled for the host and for Cortex-M3, M4 and M55.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from firmware_gen.resources import RUNTIME_DIR

KERNELS_DIR = RUNTIME_DIR / "kernels"
_HEADERS_DIR = RUNTIME_DIR / "include"
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# A prototype: return type, name, parameters without a body, then ';'.
_DECLARATION = re.compile(r"^[A-Za-z_][\w \t\*]*\b(fg_\w+)\s*\([^;{}]*\)\s*;", re.M)
_DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*\b(fg_\w+)\s*\([^;{}]*\)\s*\{", re.M)
_MACRO_DEFINITION = re.compile(r"^[A-Z][A-Z0-9_]*\(\s*(fg_\w+)\s*,", re.M)
_REFERENCE = re.compile(r"\b(fg_\w+)\b")
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


@dataclass(frozen=True)
class KernelFile:
    name: str  # its path under runtime_c/kernels, e.g. "convolution/conv2d_pointwise.c"
    defines: frozenset[str]
    uses: frozenset[str]  # the fg_ names it uses, and those the runtime headers it includes use


def _code(text: str) -> str:
    """text without comments and prototypes."""
    return _DECLARATION.sub(" ", _COMMENT.sub(" ", text))


def _uses(text: str) -> set[str]:
    return set(_REFERENCE.findall(_code(text)))


@functools.cache
def _header(name: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The fg_ names a runtime header (`fg/x.h`) uses itself, and the headers it includes; nothing for a C library
    header."""
    path = _HEADERS_DIR / name
    if not path.is_file():
        return frozenset(), ()
    text = path.read_text()
    return frozenset(_uses(text)), tuple(_INCLUDE.findall(text))


def included_uses(text: str) -> set[str]:
    """The fg_ names used in C text and in the runtime headers it includes, directly or not (each header once, so
    that headers including each other, as their include guards allow, end the walk)."""
    uses, pending, seen = _uses(text), _INCLUDE.findall(text), set()
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            own, includes = _header(name)
            uses |= own
            pending.extend(includes)
    return uses


def read_kernel(path: Path, root: Path = KERNELS_DIR) -> KernelFile:
    text = _COMMENT.sub(" ", path.read_text())
    defines = set(_DEFINITION.findall(text)) | set(_MACRO_DEFINITION.findall(text))
    return KernelFile(path.relative_to(root).as_posix(), frozenset(defines), frozenset(included_uses(text) - defines))


@functools.cache
def kernel_files() -> tuple[KernelFile, ...]:
    return tuple(read_kernel(path) for path in sorted(KERNELS_DIR.rglob("*.c")))


def needed_kernels(code: Iterable[str]) -> list[str]:
    """The kernel files (paths under runtime_c/kernels, sorted) that C texts `code` (a generated model's files) need,
    with what they call."""
    defined_in: dict[str, list[KernelFile]] = {}
    for kernel in kernel_files():
        for function in kernel.defines:
            defined_in.setdefault(function, []).append(kernel)
    wanted = set().union(*(included_uses(text) for text in code))
    needed: dict[str, KernelFile] = {}
    while wanted:
        for kernel in defined_in.get(wanted.pop(), []):
            if kernel.name not in needed:
                needed[kernel.name] = kernel
                wanted |= kernel.uses
    return sorted(needed)
