"""The build cache stays under its limit: least recently used items go first, recently used ones never."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from firmware_gen.cli import main
from firmware_gen.target import cache_limit
from firmware_gen.target.cache_limit import CacheItem, enforce_limit, items_to_evict

MIB = 1024 * 1024
HOUR = 3600.0


def _item(name: str, size: int, age: float, now: float = 1e9) -> CacheItem:
    return CacheItem(Path(name), size, now - age)


def test_least_recently_used_go_first_until_under_the_limit() -> None:
    items = [_item("new", 4, HOUR), _item("oldest", 4, 3 * HOUR), _item("old", 4, 2 * HOUR)]
    assert [i.path.name for i in items_to_evict(items, limit=5, now=1e9)] == ["oldest", "old"]
    assert items_to_evict(items, limit=12, now=1e9) == []


def test_items_used_within_the_grace_period_stay_even_over_the_limit() -> None:
    items = [_item("just-used", 10, 60.0), _item("old", 1, 2 * HOUR)]
    assert [i.path.name for i in items_to_evict(items, limit=0, now=1e9)] == ["old"]


def _populate(root: Path, now: float) -> None:
    """Two firmware entries (directories) and two objects (files), an hour apart in last use, 1 MiB each."""
    for age, relative in enumerate(["firmware/a1", "host-objects/b-1.o", "firmware/c1", "cross-objects/d-1.o"]):
        path = root / relative
        data = path / "build" / "model.elf" if relative.startswith("firmware") else path
        data.parent.mkdir(parents=True, exist_ok=True)
        data.write_bytes(b"\0" * MIB)
        stamp = now - (age + 1) * HOUR
        os.utime(path, (stamp, stamp))
    (root / "firmware" / ".e1.123.abcd.partial").mkdir()  # a build in progress is not an item


def test_enforce_limit_evicts_whole_items_and_checks_at_most_every_interval(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = time.time()
    _populate(tmp_path, now)
    monkeypatch.setenv(cache_limit.LIMIT_ENV, "2")
    evicted = enforce_limit(tmp_path, now)
    assert sorted(i.path.name for i in evicted) == ["c1", "d-1.o"]
    assert sorted(p.name for p in tmp_path.glob("*/*")) == [".e1.123.abcd.partial", "a1", "b-1.o"]
    monkeypatch.setenv(cache_limit.LIMIT_ENV, "0")
    assert enforce_limit(tmp_path, now + 60) == []  # checked a minute ago
    later = now + cache_limit.SWEEP_INTERVAL_SECONDS + 1
    assert sorted(i.path.name for i in enforce_limit(tmp_path, later)) == ["a1", "b-1.o"]


def test_cache_command_reports_and_clears(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _populate(tmp_path / "firmware-gen", time.time())
    assert main(["cache"]) == 0
    report = capsys.readouterr().out
    assert "holds 4.0 MiB (limit 2048 MiB" in report and "firmware" in report and "2 items" in report
    assert main(["cache", "--clear"]) == 0
    assert "removed 4.0 MiB" in capsys.readouterr().out
    assert [p.name for p in (tmp_path / "firmware-gen").glob("*/*")] == [".e1.123.abcd.partial"]


def test_a_bad_limit_is_one_line_and_status_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(cache_limit.LIMIT_ENV, "-5")
    assert main(["cache"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "FIRMWARE_GEN_CACHE_LIMIT_MB='-5'" in error
