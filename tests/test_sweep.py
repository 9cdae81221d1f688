"""`firmware-gen sweep` on the local pool (issue 28): rows for every job of the cross product (a job that fails is
a row with its error), the CSV and the page; an interrupted sweep resumes without running or writing a job twice;
each bad input refused in one line, exit status 2, nothing run or written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from firmware_gen.modelgen.zoo import residual_block, tiny_cnn

from conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                                reason="needs qemu-system-arm and arm-none-eabi-gcc")


def write_models(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny_cnn.tflite").write_bytes(tiny_cnn(3))
    (folder / "residual.tflite").write_bytes(residual_block(5))


def write_spec(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


SPEC = """models = ["models/*.tflite"]
boards = ["mps2_an385"]
[options]
algorithm = "greedy_by_size"
pools = [[], ["no_such_region"]]
"""


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def test_sweep_rows_failures_page_and_resume(tmp_path: Path) -> None:
    write_models(tmp_path / "models")
    spec = write_spec(tmp_path / "spec.toml", SPEC)
    out = tmp_path / "results"
    done = run_cli("sweep", str(spec), "-o", str(out), "--jobs", "2", "--json")
    assert done.returncode == 1, done.stderr  # two jobs failed: the board has no region no_such_region
    assert json.loads(done.stdout) == {"folder": str(out), "jobs": 4, "ran": 4, "failed": 2, "not_bit_exact": 0}
    rows = _rows(out)
    assert sorted((r["model"], r["options"]["pools"]) for r in rows) == [
        ("models/residual.tflite", []), ("models/residual.tflite", ["no_such_region"]),
        ("models/tiny_cnn.tflite", []), ("models/tiny_cnn.tflite", ["no_such_region"])]
    for row in rows:
        if row["options"]["pools"]:
            assert "no_such_region" in row["error"] and "\n" not in row["error"] and row["instructions"] is None
        else:
            assert row["error"] is None and row["bit_exact"] is True
            assert row["instructions"] > 0 and 0 < row["pool_bytes"] <= row["ram_bytes"] and row["flash_bytes"] > 0
    csv_lines = (out / "results.csv").read_text().splitlines()
    assert len(csv_lines) == 5 and csv_lines[0].startswith("job,model,board,algorithm,")
    page = (out / "index.html").read_text()
    assert page.count("<tr>") == 5 and "data:image/png;base64," in page

    # Interrupted after three rows, the fourth cut in the middle: the resumed sweep runs the one job left.
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:3]) + lines[3][:20])
    (out / "results.csv").unlink()
    done = run_cli("sweep", str(spec), "-o", str(out), "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["ran"] == 1
    again = _rows(out)
    assert len(again) == 4 and {r["job"] for r in again} == {r["job"] for r in rows}
    assert (out / "results.csv").exists()


def _refused(*args: str) -> str:
    done = run_cli("sweep", *args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def test_bad_input_is_one_line_and_nothing_runs(tmp_path: Path) -> None:
    write_models(tmp_path / "models")
    out = tmp_path / "never"
    good = 'models = ["models/tiny_cnn.tflite"]\nboards = ["mps2_an385"]\n'
    cases = {
        "unknown key 'board'": 'models = ["models/*.tflite"]\nboard = ["mps2_an385"]\n',
        "unknown key 'options.colour'": good + "[options]\ncolour = 1\n",
        "models 'nets/*.tflite' matches no file": 'models = ["nets/*.tflite"]\nboards = ["mps2_an385"]\n',
        "unknown board 'mps9'": 'models = ["models/*.tflite"]\nboards = ["mps9"]\n',
        "unknown planning algorithm": good + '[options]\nalgorithm = ["exact", "fastest"]\n',
    }
    for expected, text in cases.items():
        assert expected in _refused(str(write_spec(tmp_path / "bad.toml", text)), "-o", str(out))
        assert not out.exists()
    spec = write_spec(tmp_path / "good.toml", good)
    assert "127.0.0.1:9" in _refused(str(spec), "-o", str(out), "--ray", "127.0.0.1:9")  # the discard port: closed
    assert not out.exists()

    # A folder another spec wrote.
    other = tmp_path / "other"
    other.mkdir()
    (other / "sweep.json").write_text(json.dumps({"spec": "elsewhere.toml", "fingerprint": "0" * 64, "jobs": 1}))
    assert "different spec (elsewhere.toml)" in _refused(str(spec), "-o", str(other))
    assert sorted(p.name for p in other.iterdir()) == ["sweep.json"]


def test_the_readme_spec_reads_as_written(tmp_path: Path) -> None:
    """The spec of README's "Many models, many boards, many machines", with stand-in model files: 24 jobs."""
    from firmware_gen.sweep.page import pareto_front
    from firmware_gen.sweep.spec import read_spec

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme.split("## Many models, many boards, many machines", 1)[1]
    block = section.split("    # zoo.toml", 1)[1].split("\n\n    firmware-gen sweep", 1)[0]
    write_models(tmp_path / "candidates")
    shutil.copy(tmp_path / "candidates" / "tiny_cnn.tflite", tmp_path / "kws_ref_model.tflite")
    spec = write_spec(tmp_path / "zoo.toml", "\n".join(line[4:] for line in block.splitlines()[1:]))
    jobs = read_spec(spec).jobs()
    assert len(jobs) == 3 * 2 * 2 * 2 * 2 and len({job.key for job in jobs}) == len(jobs)
    assert {job.model for job in jobs} == {"candidates/residual.tflite", "candidates/tiny_cnn.tflite",
                                           "kws_ref_model.tflite"}
    assert pareto_front([(10, 5), (8, 9), (12, 5), (8, 7), (20, 1)]) == [(8, 7), (10, 5), (20, 1)]


def _sweep_tiny_cnn_on_an386(tmp_path: Path, option: str) -> tuple[dict[bool, dict], Path]:
    """tiny_cnn on mps2_an386 swept over `option` = [true, false]: its rows by that option's value, and the output."""
    write_models(tmp_path / "models")
    spec = write_spec(tmp_path / "spec.toml", 'models = ["models/tiny_cnn.tflite"]\nboards = ["mps2_an386"]\n'
                                              f'[options]\nalgorithm = "greedy_by_size"\n{option} = [true, false]\n')
    out = tmp_path / "results"
    done = run_cli("sweep", str(spec), "-o", str(out), "--jobs", "1", "--json")
    assert done.returncode == 0, done.stderr
    return {r["options"][option]: r for r in _rows(out)}, out


def test_variants_off_runs_the_portable_kernels(tmp_path: Path) -> None:
    """options.variants = false: the same board with the portable C kernels only; both bit-exact, different counts."""
    rows, _ = _sweep_tiny_cnn_on_an386(tmp_path, "variants")
    assert rows[True]["bit_exact"] is True and rows[False]["bit_exact"] is True
    assert rows[True]["instructions"] != rows[False]["instructions"]


def test_cycles_option_adds_the_estimate_beside_the_count(tmp_path: Path) -> None:
    """options.cycles = true: each QEMU job's row carries estimated cycles (an estimate) beside the exact count."""
    rows, out = _sweep_tiny_cnn_on_an386(tmp_path, "cycles")
    assert rows[False]["estimated_cycles"] is None and rows[True]["estimated_cycles"] > 0
    assert rows[True]["instructions"] == rows[False]["instructions"]
    assert "estimated_cycles" in (out / "results.csv").read_text().splitlines()[0]
