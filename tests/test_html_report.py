"""`firmware-gen analyze MODEL [--board B] --html FILE` (issue 11): one self-contained page (no external file,
script or network: inline CSS, base64 PNG plots) with every layer, the totals, the memory timeline and, with a
QEMU board, the flash/RAM split, the fit and the per-layer profile of one run."""

from __future__ import annotations

import base64
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from firmware_gen.cli import main
from firmware_gen.modelgen.zoo import every_op, tiny_cnn

pytest.importorskip("matplotlib")
IMAGE = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def _analyze(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, dict | None, str]:
    status = main(["analyze", *args, "--json"])
    out, err = capsys.readouterr()
    return status, json.loads(out) if status == 0 else None, err


def assert_self_contained(page: str) -> list[bytes]:
    """No reference outside the page; returns the embedded images, each a whole PNG."""
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    without_images = IMAGE.sub('src=""', page)
    for outside in ("<script", "<link", "<iframe", "url(", "@import", "http:", "https:", "//"):
        assert outside not in without_images, outside
    assert re.findall(r'(?:src|href)="([^"]+)"', without_images) == []
    images = [base64.b64decode(data) for data in IMAGE.findall(page)]
    assert all(png.startswith(b"\x89PNG\r\n\x1a\n") and png.endswith(b"IEND\xaeB`\x82") for png in images)
    return images


def assert_every_layer(page: str, analysis: dict) -> None:
    for layer in analysis["layers"]:
        row = f'<tr><td class="n">{layer["index"]}</td><td>{layer["operator"]}</td>'
        assert row in page, row
    assert f'<td class="n">{analysis["totals"]["macs"]:,}</td>' in page


def test_without_a_board(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    model = tmp_path / "every_op.tflite"
    model.write_bytes(every_op())
    page_path = tmp_path / "report.html"
    status, analysis, err = _analyze(capsys, str(model), "--html", str(page_path))
    assert status == 0, err
    assert f"wrote {page_path}" in err  # stdout is the JSON
    page = page_path.read_text()
    assert len(assert_self_contained(page)) == 1  # the memory timeline; no profile without a run
    assert_every_layer(page, analysis)
    assert "Left out: without --board nothing runs" in page and "give --board to build the firmware" in page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["every_op.tflite", "report.html"]  # no temporary left


def test_a_path_that_cannot_be_written_is_refused_first(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    status, _, err = _analyze(capsys, "no/such/model.tflite", "--html", str(tmp_path / "missing" / "r.html"))
    assert status == 2 and len(err.strip().splitlines()) == 1 and "--html" in err and "no such directory" in err


def test_without_matplotlib_it_says_so_first(tmp_path: Path, capsys: pytest.CaptureFixture,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    status, _, err = _analyze(capsys, "no/such/model.tflite", "--html", str(tmp_path / "r.html"))
    assert status == 2 and err == "firmware-gen: error: --html needs matplotlib: pip install 'firmware-gen[plot]'\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.qemu
@pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
                    reason="needs qemu-system-arm and arm-none-eabi-gcc")
def test_on_a_qemu_board(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(tiny_cnn())
    page_path = tmp_path / "report.html"
    status, analysis, err = _analyze(capsys, str(model), "--board", "mps2_an385", "--html", str(page_path))
    assert status == 0, err
    page = page_path.read_text()
    assert len(assert_self_contained(page)) == 2  # the memory timeline and the profile
    assert_every_layer(page, analysis)
    memory = analysis["memory"]
    assert f'<td>total</td><td class="n">{memory["flash_bytes"]:,}</td>' in page
    assert f'<td>total</td><td class="n">{memory["ram_bytes"]:,}</td>' in page
    for region in (r for r in memory["regions"] if r["used"]):
        assert f'<td>{region["name"]}</td><td class="n">{region["used"]:,}</td>' in page
    assert "One run under QEMU on mps2_an385" in page and "<th>instructions</th>" in page
    assert "est. cycles" not in page  # the estimate only on demand (it traces the run)
    status, _, err = _analyze(capsys, str(model), "--board", "mps2_an385", "--html", str(page_path), "--cycles")
    assert status == 0, err
    page = page_path.read_text()
    assert "<th>est. cycles (estimate)</th>" in page and "an ESTIMATE, not a measurement (cortex-m3" in page
