"""The caches under ~/.cache/firmware-gen (firmware builds, host and cross objects) kept under a size limit.

Every kind of cache is a folder of items (a firmware build is a directory, an object a file). An item's
modification time is its last use: publishing sets it, and a cache hit touches it. Past the limit, the least
recently used items go first, but never one used in the last GRACE_SECONDS: another process may have just
loaded it and be about to run it. The limit is checked after a firmware build is published, at most once every
SWEEP_INTERVAL_SECONDS (a stamp file records the last check), so it is soft for a burst of builds. An item is
renamed aside before it is deleted, so a reader sees it whole or not at all.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from firmware_gen.errors import UserError

LIMIT_ENV = "FIRMWARE_GEN_CACHE_LIMIT_MB"
DEFAULT_LIMIT_MB = 2048
GRACE_SECONDS = 15 * 60
SWEEP_INTERVAL_SECONDS = 5 * 60
_STAMP = ".last-sweep"


@dataclass(frozen=True)
class CacheItem:
    path: Path
    size: int
    last_used: float


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "firmware-gen"


def limit_bytes() -> int:
    """The limit from FIRMWARE_GEN_CACHE_LIMIT_MB (megabytes, 0: keep nothing unused), else the default."""
    text = os.environ.get(LIMIT_ENV, "").strip()
    if not text:
        return DEFAULT_LIMIT_MB * 1024 * 1024
    try:
        megabytes = int(text)
    except ValueError:
        megabytes = -1
    if megabytes < 0:
        raise UserError(f"{LIMIT_ENV}={text!r}: expected a whole number of megabytes, 0 or more")
    return megabytes * 1024 * 1024


def mark_used(path: Path) -> None:
    """Record a cache hit on path (an item)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _size(path: Path) -> int:
    if not path.is_dir():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def cache_items(root: Path) -> list[CacheItem]:
    """Every published item of every kind under root (private and partial files, named with a leading dot,
    are not items: they belong to builds in progress)."""
    found = []
    for kind in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        for path in kind.iterdir():
            if path.name.startswith("."):
                continue
            with contextlib.suppress(OSError):  # removed meanwhile by another process
                found.append(CacheItem(path, _size(path), path.stat().st_mtime))
    return found


def items_to_evict(items: list[CacheItem], limit: int, now: float, grace: float = GRACE_SECONDS) -> list[CacheItem]:
    """The least recently used items whose removal brings the total to the limit, leaving out those used within
    grace seconds of now (the total may then stay above the limit)."""
    total = sum(item.size for item in items)
    evicted = []
    for item in sorted(items, key=lambda i: i.last_used):
        if total <= limit:
            break
        if now - item.last_used < grace:
            continue
        evicted.append(item)
        total -= item.size
    return evicted


def remove_item(path: Path) -> None:
    aside = path if path.name.endswith(".evicted") else path.parent / f".{path.name}.{uuid.uuid4().hex[:8]}.evicted"
    try:
        os.rename(path, aside)
    except OSError:
        return  # gone already, or another process is removing it
    if aside.is_dir():
        shutil.rmtree(aside, ignore_errors=True)
    else:
        aside.unlink(missing_ok=True)


def enforce_limit(root: Path | None = None, now: float | None = None) -> list[CacheItem]:
    """Evict past the limit, unless that was checked within SWEEP_INTERVAL_SECONDS; the items removed."""
    root = root or cache_root()
    now = time.time() if now is None else now
    stamp = root / _STAMP
    with contextlib.suppress(OSError):
        if now - stamp.stat().st_mtime < SWEEP_INTERVAL_SECONDS:
            return []
    root.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    for leftover in root.glob("*/.*.evicted"):  # of an eviction that was interrupted
        remove_item(leftover)
    evicted = items_to_evict(cache_items(root), limit_bytes(), now)
    for item in evicted:
        remove_item(item.path)
    return evicted


def clear(root: Path | None = None) -> list[CacheItem]:
    """Remove every item (for `firmware-gen cache --clear`); the items removed."""
    items = cache_items(root or cache_root())
    for item in items:
        remove_item(item.path)
    return items
