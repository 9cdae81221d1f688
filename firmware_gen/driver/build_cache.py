"""The firmware cache, safe under concurrency: an entry (generated C, objects, ELF) is built in a private
directory beside it and published whole by one rename, with a record of its FirmwareBuild and CompiledModel
written last (a hit neither plans nor lowers again). An entry is trusted only with its record; a build that was
interrupted leaves only a private directory nobody reads (swept once it is a day old), so any number of processes
may build the same or different entries at once."""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import os
import pickle
import shutil
import time
import uuid
from pathlib import Path

from firmware_gen.driver.compiler import CompiledModel
from firmware_gen.manifest import read_manifest
from firmware_gen.output_paths import process_running
from firmware_gen.target.cache_limit import enforce_limit, mark_used
from firmware_gen.target.cross_build import FirmwareBuild

RECORD = "firmware-build.pickle"
_STALE_SECONDS = 24 * 3600


def private_dir(entry: Path) -> Path:
    """A directory name beside entry that no other process uses (not created: the build creates it)."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    _sweep(entry.parent)
    for partial in entry.parent.glob(f".{glob.escape(entry.name)}.*.partial"):  # of this entry, a killed run's
        pid = partial.name[len(entry.name) + 2:].split(".", 1)[0]
        if pid.isdigit() and not process_running(int(pid)):
            shutil.rmtree(partial, ignore_errors=True)
    return entry.parent / f".{entry.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.partial"


def _sweep(root: Path) -> None:
    """Private directories of builds that were killed long ago."""
    now = time.time()
    for partial in root.glob(".*.partial"):
        with contextlib.suppress(OSError):
            if now - partial.stat().st_mtime > _STALE_SECONDS:
                shutil.rmtree(partial, ignore_errors=True)


def _relocated(firmware: FirmwareBuild, entry: Path) -> FirmwareBuild:
    return dataclasses.replace(firmware, elf=entry / firmware.elf.relative_to(firmware.model_dir.parent),
                               model_dir=entry / firmware.model_dir.name)


def load(entry: Path) -> tuple[CompiledModel, FirmwareBuild] | None:
    """The compiled model and firmware of a published entry; None if there is none (or it is unreadable). The
    entry's key covers the model, the options and the compiler's sources, so its record is what compiling would
    give."""
    try:
        compiled, firmware = pickle.loads((entry / RECORD).read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, TypeError, ValueError):
        return None
    if not isinstance(firmware, FirmwareBuild) or not isinstance(compiled, CompiledModel) \
            or not firmware.elf.exists():
        return None
    compiled.manifest = read_manifest(firmware.model_dir)  # the published copy's
    mark_used(entry)
    return compiled, firmware


def publish(entry: Path, private: Path, compiled: CompiledModel, firmware: FirmwareBuild) -> FirmwareBuild:
    """Publish the whole build in private as entry (or drop it if another process published entry first); the
    firmware at its published place."""
    (private / RECORD).write_bytes(pickle.dumps((compiled, _relocated(firmware, entry))))
    for _attempt in range(3):
        try:
            os.rename(private, entry)
            enforce_limit()
            return _relocated(firmware, entry)
        except OSError:
            if (entry / RECORD).exists():  # identical by its key: use the one already there
                shutil.rmtree(private, ignore_errors=True)
                return _relocated(firmware, entry)
            # An entry without its record (written by an older firmware-gen): set it aside, then publish.
            aside = entry.parent / f".{entry.name}.{uuid.uuid4().hex[:8]}.partial"
            with contextlib.suppress(OSError):
                os.rename(entry, aside)
                shutil.rmtree(aside, ignore_errors=True)
    return firmware  # could not publish: this run uses its private build


def copy_entry(firmware: FirmwareBuild, private: Path) -> Path:
    """A published entry's model/ and build/ copied into private (for install)."""
    source = firmware.model_dir.parent
    try:
        for part in ("model", "build"):
            shutil.copytree(source / part, private / part, symlinks=True)
    except BaseException:
        shutil.rmtree(private, ignore_errors=True)
        raise
    return private


def install(destination: Path, private: Path, firmware: FirmwareBuild) -> FirmwareBuild:
    """Move a build made in private into the user's output directory: its model/ and build/ folders each replace
    the old one by a rename (other files there are left alone), so a failed build never leaves half a folder."""
    destination.mkdir(parents=True, exist_ok=True)
    for part in ("model", "build"):
        target, aside = destination / part, destination / f".{part}.{uuid.uuid4().hex[:8]}.old"
        if target.exists():
            os.rename(target, aside)
        os.rename(private / part, target)
        shutil.rmtree(aside, ignore_errors=True)
    shutil.rmtree(private, ignore_errors=True)
    return _relocated(firmware, destination)
