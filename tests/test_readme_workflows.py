"""README.md's "Workflows for a product" (issue 11), run as written: every `firmware-gen` command of each
subsection, in a scratch directory of its own with the subsection's project file, on a synthetic stand-in of each
model it names (tiny_cnn; a `*_float.tflite`: tiny_cnn's float twin), so that the README cannot drift from the
command line. Also checked: the CMake and Make lines against the directories `generate` wrote (CMake configured,
Make evaluated), and each one-line error the README shows, from a project file broken as the error says.

Not run here, and why:
- the commands on the real models the README names (kws_ref_model, micro_speech_quantized, vww_96_int8): a
  synthetic stand-in keeps this under 30 s and runs without ../shared/models; the real models go through the same
  commands in tests/test_analyze.py, test_run_output.py, test_validate_dataset.py and tests/target/;
- the example output of `run` (kws_ref_model's numbers): its format is tests/test_run_output.py's;
- the CMake build itself (configured here, not compiled): tests/test_product_c.py builds a C++ application of two
  models through the generated CMakeLists.txt, tests/target/test_product_firmware.py through model.mk;
- two commands are parsed here (the real parser, with the subsection's project file) but not run, each costing a
  cold cross build of its own (~6 s of CPU) for what is run already: see PARSED_ONLY;
- commands that build or run firmware, when arm-none-eabi-gcc or qemu-system-arm is missing (skipped, named).
Everything else is run: 2 cold cross builds, 3 QEMU runs, 2 host builds with TFLM and LiteRT (~25 s of CPU).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from readme_commands import Workflow, product_workflows

from firmware_gen.cli.entry import _project_settings, build_parser, main
from firmware_gen.modelgen.zoo import tiny_cnn_pair

# One worker for the whole module (pytest-xdist --dist loadgroup): `run --board mps2_an386` then finds the firmware
# `analyze --board mps2_an386` built in this process's cache, instead of building it again.
pytestmark = pytest.mark.xdist_group("readme_workflows")
WORKFLOWS = product_workflows()
PARSED_ONLY = {  # command -> why it is parsed, not run
    "build ../shared/models/kws_ref_model.tflite --board mps2_an386 -o kws-an386":
        "the firmware analyze --board has just built, built again outside the cache; build's split is checked "
        "against the ELF in tests/test_analyze.py",
    "run kws_ref_model.tflite --board qemu_cortex_m3":
        "it shows that the command line's board wins over the project file's: read here from the parsed arguments; "
        "`run` itself is run twice above",
}
STAND_IN_SAMPLES = 4
BOARD_COMMANDS = {"build", "run", "flash"}
HAVE_TARGET_TOOLS = all(shutil.which(tool) for tool in ("arm-none-eabi-gcc", "qemu-system-arm"))
_PAIR = tiny_cnn_pair()


def _stand_in(path: Path) -> None:
    """A model the README names: tiny_cnn, or its float twin for a *_float.tflite."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_PAIR[1] if path.stem.endswith("_float") else _PAIR[0])


def _prepare(workdir: Path, workflow: Workflow) -> None:
    workdir.mkdir(parents=True)
    for argv in workflow.commands:
        for token in argv:
            if token.endswith(".tflite"):
                _stand_in(workdir / token)
            if token.endswith(".npz"):  # tiny_cnn's input: 16x16x3 float samples; 4 classes
                rng = np.random.default_rng(0)
                np.savez(workdir / token, images=rng.uniform(-1, 1, (STAND_IN_SAMPLES, 16, 16, 3)).astype(np.float32))
                np.save(workdir / "labels.npy", rng.integers(0, 4, STAND_IN_SAMPLES))
    if workflow.project_file is not None:
        (workdir / "firmware-gen.toml").write_text(workflow.project_file)
        (workdir / "release.toml").write_text(workflow.project_file)  # `--config release.toml`: the same settings


def _needs_target(argv: list[str], workflow: Workflow) -> bool:
    return argv[0] in BOARD_COMMANDS or "--board" in argv or (argv[0] == "analyze" and workflow.project_file
                                                                is not None and "board" in workflow.project_file)


def _outputs(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, token in enumerate(argv[:-1]) if token in ("-o", "--output", "--html",
                                                                          "--save-outputs")]


def _run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


WITH_COMMANDS = [w for w in WORKFLOWS if w.commands]


@pytest.mark.parametrize("workflow", WITH_COMMANDS, ids=[w.title for w in WITH_COMMANDS])
def test_each_command_runs_as_written(workflow: Workflow, tmp_path: Path, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    workdir = tmp_path / "work"  # ../shared/models/X.tflite: tmp_path/shared/models
    _prepare(workdir, workflow)
    monkeypatch.chdir(workdir)
    skipped = []
    for argv in workflow.commands:
        if _needs_target(argv, workflow) and not HAVE_TARGET_TOOLS:
            skipped.append(" ".join(argv))
            continue
        if " ".join(argv) in PARSED_ONLY:
            _parse(argv)
            continue
        status, _, err = _run(argv, capsys)
        assert status == 0, f"firmware-gen {' '.join(argv)}: {err}"
        for output in _outputs(argv):
            assert (workdir / output).exists(), f"firmware-gen {' '.join(argv)} did not write {output}"
    _check_build_snippets(workflow, workdir)
    if skipped:
        pytest.skip(f"needs arm-none-eabi-gcc and qemu-system-arm: {'; '.join(skipped)}")


def _parse(argv: list[str]) -> None:
    """The command as the CLI reads it (with ./firmware-gen.toml): every option known, the command line winning."""
    args = build_parser(_project_settings(argv)).parse_args(argv)
    assert args.handler.__name__ == f"cmd_{argv[0]}" and Path(args.model).is_file()
    for option, value in zip(argv, argv[1:], strict=False):
        if option.startswith("--") and not value.startswith("-"):
            assert str(getattr(args, option[2:].replace("-", "_"))) == value, option


def _check_build_snippets(workflow: Workflow, workdir: Path) -> None:
    """The Make lines evaluated, every source they list present; the CMake lines configured, their targets there."""
    if workflow.make and shutil.which("make"):
        (workdir / "readme.mk").write_text("\n".join([*workflow.make, "print:", "\t@echo $(SRCS)", ""]))
        sources = subprocess.run(["make", "-s", "-f", "readme.mk", "print"], cwd=workdir, capture_output=True,
                                 text=True, check=True).stdout.split()
        assert sources and all((workdir / s).is_file() for s in sources)
        assert {Path(s).parts[1] for s in sources if s.startswith("models/")} == {"kws", "speech"}
    if workflow.cmake and shutil.which("cmake"):
        (workdir / "app.c").write_text("int main(void) { return 0; }\n")
        (workdir / "CMakeLists.txt").write_text("\n".join(["cmake_minimum_required(VERSION 3.13)",
                                                           "project(readme_app LANGUAGES C)",
                                                           "add_executable(app app.c)", *workflow.cmake, ""]))
        subprocess.run(["cmake", "-S", ".", "-B", "build"], cwd=workdir, capture_output=True, check=True)
        targets = subprocess.run(["cmake", "--build", "build", "--target", "help"], cwd=workdir,
                                 capture_output=True, text=True, check=True).stdout
        linked = re.search(r"target_link_libraries\(app PRIVATE ([\w ]+)\)", " ".join(workflow.cmake))
        for target in [*(linked.group(1).split() if linked else []), "fg_runtime"]:
            assert f"... {target}" in targets, target


def _broken(project_file: str, error: str) -> str:
    """The project file broken as the README's error says: `FILE:N: unknown key 'A.B'` renames line N's key to B;
    `FILE:N: KEY = VALUE: ...` sets line N to `KEY = VALUE`."""
    number, message = re.fullmatch(r"firmware-gen\.toml:(\d+): (.*)", error).groups()
    lines = project_file.splitlines()
    line = int(number) - 1
    unknown = re.match(r"unknown key '(?:\w+\.)*(\w+)'", message)
    if unknown:
        lines[line] = re.sub(r"^\w+", unknown.group(1), lines[line])
    else:
        lines[line] = message.split(": ")[0]
    return "\n".join(lines) + "\n"


ERRORS = [(w, error) for w in WORKFLOWS for error in w.errors]


@pytest.mark.parametrize(("workflow", "error"), ERRORS, ids=[e.split(": ")[0] for _, e in ERRORS])
def test_each_error_shown_is_the_error_printed(workflow: Workflow, error: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "firmware-gen.toml").write_text(_broken(workflow.project_file, error))
    _stand_in(tmp_path / "model.tflite")
    monkeypatch.chdir(tmp_path)
    status, out, err = _run(["plan", "model.tflite"], capsys)
    expected = re.escape(f"firmware-gen: error: {error}").replace(re.escape("..."), ".*")
    assert status == 2 and out == "" and re.fullmatch(expected, err.strip()), err


def test_the_section_is_read() -> None:
    """The parser finds what the README shows, so a reworded section cannot make the tests above run nothing."""
    titles = [w.title for w in WORKFLOWS]
    assert any(t.startswith("Analyze") for t in titles) and any(t.startswith("Validate") for t in titles)
    commands = [argv[0] for w in WORKFLOWS for argv in w.commands]
    assert {"analyze", "build", "generate", "run", "validate"} <= set(commands)
    assert sum(w.project_file is not None for w in WORKFLOWS) == 1 and len(ERRORS) >= 2
    assert any(w.cmake and w.make for w in WORKFLOWS)
    shown = {" ".join(argv) for w in WORKFLOWS for argv in w.commands}
    assert set(PARSED_ONLY) <= shown, "PARSED_ONLY names a command the README no longer shows"
