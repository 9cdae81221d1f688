"""The README's operator table lists exactly the operators firmware-gen compiles."""

from __future__ import annotations

import re

from firmware_gen.ops import supported_opcodes
from firmware_gen.resources import PROJECT_DIR


def readme_operators() -> set[str]:
    text = (PROJECT_DIR / "README.md").read_text()
    table = text[text.index("### Operators"):]
    table = table[:table.index("\n\n", table.index("| family |"))]
    rows = [line.split("|")[2] for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    return {name for row in rows for name in re.findall(r"\b[A-Z][A-Z0-9_]+[A-Z0-9]\b", row)}


def test_the_readme_lists_every_supported_operator() -> None:
    assert readme_operators() == set(supported_opcodes())
