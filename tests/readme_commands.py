"""The commands, project files, build snippets and error messages of README.md's "Workflows for a product"
section, read from the README itself (tests/test_readme_workflows.py runs them): the README cannot drift from the
command line unnoticed.

A subsection's indented code blocks hold its commands (`firmware-gen ...`, `\\` continuations joined, `# ...`
comments dropped), a project file (a block starting `# firmware-gen.toml`), CMake and Make lines (after `# CMake`
and `# Make`) and the one-line errors a command prints (`firmware-gen: error: ...`, where `...` elides the rest).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
SECTION = "## Workflows for a product"
PROJECT_FILE_HEADER = "# firmware-gen.toml"


@dataclass
class Workflow:
    title: str
    commands: list[list[str]] = field(default_factory=list)  # argv after `firmware-gen`
    project_file: str | None = None  # without its header line: line numbers as the README's errors count them
    cmake: list[str] = field(default_factory=list)
    make: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _code_blocks(text: str) -> list[list[str]]:
    """The indented code blocks of a subsection (4 spaces removed; blank lines inside a block kept as ""), each
    line with its `\\` continuations joined."""
    blocks: list[list[str]] = []
    block: list[str] | None = None
    joined = ""
    for line in text.splitlines():
        if line.strip() and not line.startswith("    "):
            block = None  # prose ends a block
            continue
        if block is None:
            if not line.strip():
                continue
            block = []
            blocks.append(block)
        code = line[4:].rstrip()
        if code.endswith("\\"):
            joined += code[:-1].rstrip() + " "
            continue
        block.append(joined + code)
        joined = ""
    return blocks


def _read_block(workflow: Workflow, block: list[str]) -> None:
    state = None  # "project file", "cmake", "make": what the lines that follow are
    for line in block:
        if line.startswith(PROJECT_FILE_HEADER):
            state, workflow.project_file = "project file", ""
        elif line.startswith("firmware-gen: error: "):
            workflow.errors.append(line.removeprefix("firmware-gen: error: "))
        elif line.startswith("firmware-gen "):
            workflow.commands.append(shlex.split(line, comments=True)[1:])
            state = None
        elif line.strip() in ("# CMake", "# Make"):
            state = line.strip()[2:].lower()
        elif state == "project file":
            workflow.project_file += line + "\n"
        elif state in ("cmake", "make") and line:
            getattr(workflow, state).append(line)
    if workflow.project_file is not None:
        workflow.project_file = workflow.project_file.rstrip("\n") + "\n"


def _read_workflow(title: str, text: str) -> Workflow:
    workflow = Workflow(title)
    for block in _code_blocks(text):
        _read_block(workflow, block)
    return workflow


def product_workflows(readme: Path = README) -> list[Workflow]:
    """One Workflow per `###` subsection of the section, in README order."""
    text = readme.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end > 0 else len(text)]
    parts = re.split(r"^### (.+)$", section, flags=re.MULTILINE)
    return [_read_workflow(title.strip(), body) for title, body in zip(parts[1::2], parts[2::2], strict=True)]
