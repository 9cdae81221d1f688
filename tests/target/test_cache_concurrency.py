"""The firmware cache under concurrency (issue 10): runs started at once on an empty cache, some building the same
entry, all succeed bit-exact against TFLM and publish one whole entry each; an entry left without its record (a
build by an older firmware-gen, or one killed in place) is never trusted. The 16-run form is
`python bench/cache_concurrency.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from target_fixtures import needs_qemu

from conftest import shared_model

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from cache_concurrency import cache_state, concurrent_runs  # noqa: E402

pytestmark = [needs_qemu, pytest.mark.qemu]


def test_concurrent_cold_cache_runs_all_succeed_bit_exact(tmp_path: Path):
    hello, speech = shared_model("hello_world_int8"), shared_model("micro_speech_quantized")
    pairs = [(hello, "mps2_an385")] * 3 + [(speech, "mps2_an386")] * 2
    results = concurrent_runs(pairs, tmp_path, timeout=600)
    assert all(r["status"] == 0 and r["bit_exact"] and not r["traceback"] for r in results), results
    assert cache_state(tmp_path) == (2, 0)  # one entry per key, no private build left
    again = concurrent_runs(pairs[:1], tmp_path, timeout=600)  # warm: the published entry is used
    assert again[0]["status"] == 0 and again[0]["bit_exact"] and cache_state(tmp_path) == (2, 0)


def test_an_entry_without_its_record_is_rebuilt(tmp_path: Path):
    hello = shared_model("hello_world_int8")
    assert concurrent_runs([(hello, "mps2_an385")], tmp_path)[0]["status"] == 0
    entry = next(p for p in (tmp_path / "firmware-gen" / "firmware").iterdir() if not p.name.startswith("."))
    (entry / "firmware-build.pickle").unlink()  # as if the build had been killed before it was published
    (entry / "build" / "firmware.elf").write_bytes(b"half an ELF")
    result = concurrent_runs([(hello, "mps2_an385")], tmp_path)[0]
    assert result["status"] == 0 and result["bit_exact"], result
    # The entry is published again, whole (a new key if the runtime sources changed meanwhile: a live tree).
    assert (entry / "firmware-build.pickle").exists() or cache_state(tmp_path)[0] == 2
    assert cache_state(tmp_path)[1] == 0
