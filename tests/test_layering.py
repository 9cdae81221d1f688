"""The layering rules of ARCHITECTURE.md hold (import-linter's contracts in .importlinter), a broken rule is caught,
and every module and function stays small enough to read."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}  # the copy's firmware_gen, not the installed one
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)


def scratch_copy(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "firmware_gen", tmp_path / "firmware_gen",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_the_tree_keeps_every_contract() -> None:
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("planner/liveness.py", "from firmware_gen.ops import REGISTRY", "The planner knows buffers"),
    ("frontend/ir.py", "import firmware_gen.planner", "The frontend"),
    ("link/runner.py", "from firmware_gen.backend import codegen", "The link"),
    ("target/cross_build.py", "from firmware_gen.check import oracle", "Nothing on the compile"),
    ("ops/geometry.py", "import firmware_gen.ops.convolution.conv2d", "No import cycles"),
])
def test_a_wrong_import_is_caught(tmp_path: Path, module: str, line: str, contract: str) -> None:
    root = scratch_copy(tmp_path)
    path = root / "firmware_gen" / module
    path.write_text(path.read_text() + f"\n{line}  # deliberately wrong\n")
    done = lint_imports(root)
    assert done.returncode != 0, done.stdout[-3000:]
    assert "Broken contracts" in done.stdout and contract in done.stdout.split("Broken contracts")[-1]


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_modules_and_functions_stay_small() -> None:
    too_long = []
    for path in sorted((REPO / "firmware_gen").rglob("*.py")):
        text = path.read_text()
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            too_long.append(f"{path.relative_to(REPO)}: {lines} lines")
        for function in _functions(ast.parse(text)):
            length = function.end_lineno - function.lineno + 1
            if length > MAX_FUNCTION_LINES:
                too_long.append(f"{path.relative_to(REPO)}:{function.lineno} {function.name}(): {length} lines")
    assert not too_long, "\n".join(too_long)
