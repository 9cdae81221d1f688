"""Where firmware-gen writes what the user asked for (`generate -o`, `build -o`, `--plot`): checked before any long
work, written all or nothing.

`check_output_dir` and `check_output_file` refuse, with one line naming the path and the reason, an output that
cannot be written: a file where a directory is wanted (or the reverse), a missing parent of a file, a directory
that is read-only, immutable or not ours. They probe by creating a file, since as root `os.access` says yes to
almost everything. `written_file` writes through a temporary sibling in the destination's directory, moved into
place by `os.replace` only once complete; `move` falls back to a copy beside the destination, then a rename, when
the source is on another file system. Any OSError on the way becomes an `OutputPathError`, and nothing
half-written is left at the destination or beside it.

A leaf: imports nothing of firmware-gen but its errors.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from firmware_gen.errors import OutputPathError


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def output_error(label: str, path: str | Path, error: OSError, doing: str = "cannot write") -> OutputPathError:
    """The one-line error of an output that failed: `label path: doing (reason)`."""
    return OutputPathError(f"{label} {path}: {doing} ({_reason(error)})")


def _probe(directory: Path, label: str, path: str | Path) -> None:
    """Create and remove a file in `directory`: the one test of writability that holds for root too."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".fg-probe.", dir=directory)
    except OSError as error:
        raise OutputPathError(f"{label} {path}: cannot write in {directory} ({_reason(error)})") from None
    os.close(fd)
    os.unlink(probe)


def _nearest_existing(path: Path) -> Path:
    for ancestor in (path, *path.parents):
        if ancestor.exists() or ancestor.is_symlink():
            return ancestor
    return Path(".")


def check_output_dir(path: str | Path, label: str = "output directory") -> Path:
    """`path` is, or can be made (with its parents), a directory firmware-gen can write in."""
    target = Path(path)
    existing = _nearest_existing(target)
    if not existing.is_dir():
        if existing == target:
            raise OutputPathError(f"{label} {path}: exists and is not a directory")
        raise OutputPathError(f"{label} {path}: {existing} is not a directory")
    _probe(existing, label, path)
    return target


def check_output_file(path: str | Path, label: str = "output file") -> Path:
    """`path` is a regular file, or nothing yet, in an existing directory firmware-gen can write in."""
    target = Path(path)
    if target.is_dir():
        raise OutputPathError(f"{label} {path}: is a directory")
    if target.exists() and not target.is_file():
        raise OutputPathError(f"{label} {path}: is not a regular file")
    parent = target.parent
    if not parent.is_dir():
        existing = _nearest_existing(parent)
        reason = "no such directory" if existing.is_dir() else f"{existing} is not a directory"
        raise OutputPathError(f"{label} {path}: {reason}" + (f" ({parent})" if existing.is_dir() else ""))
    _probe(parent, label, path)
    return target


def _new_file_mode(target: Path) -> int:
    if target.is_file():
        return stat.S_IMODE(target.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def written_file(path: str | Path, label: str = "output file") -> Iterator[Path]:
    """Yields a temporary sibling of `path` (same suffix, same directory) to write; once the block ends it
    replaces `path` whole. On any error, or if the block raises, the sibling is removed and `path` untouched."""
    target = check_output_file(path, label)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
    except OSError as error:
        raise output_error(label, path, error) from None
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, _new_file_mode(target))
        os.replace(temporary, target)
    except OSError as error:
        raise output_error(label, path, error) from None
    finally:
        temporary.unlink(missing_ok=True)


SCRATCH_TAG = "fg-scratch"


def process_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_dead_scratch(directory: Path, name: str) -> None:
    """The scratch directories for `name` in directory (`scratch_dir`) of processes no longer running: what a
    SIGKILL left, which no handler could remove."""
    prefix = f".{name}.{SCRATCH_TAG}-"
    for entry in directory.glob(f".*.{SCRATCH_TAG}-*"):
        pid = entry.name[len(prefix):].split("-", 1)[0] if entry.name.startswith(prefix) else ""
        if pid.isdigit() and not process_running(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def scratch_dir(directory: Path, name: str) -> Path:
    """A new hidden directory `.NAME.fg-scratch-PID-XXXX` in directory, to write an output before it is moved
    into place; those for name that dead processes left there are removed first."""
    remove_dead_scratch(directory, name)
    return Path(tempfile.mkdtemp(prefix=f".{name}.{SCRATCH_TAG}-{os.getpid()}-", dir=directory))


def copy_tree(source: Path, destination: Path) -> None:
    """shutil.copytree without its error list: the first OSError is raised as it is (ENOSPC, EROFS...)."""
    destination.mkdir()
    for entry in sorted(source.iterdir()):
        if entry.is_dir():
            copy_tree(entry, destination / entry.name)
        else:
            shutil.copyfile(entry, destination / entry.name)


def move(source: Path, destination: Path) -> None:
    """os.replace(source, destination); across file systems (EXDEV) a copy into a temporary sibling of the
    destination, renamed into place, then the source removed."""
    try:
        os.replace(source, destination)
        return
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=destination.parent))
    try:
        copy = staging / destination.name
        copy_tree(source, copy) if source.is_dir() else shutil.copyfile(source, copy)
        os.replace(copy, destination)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    shutil.rmtree(source) if source.is_dir() else source.unlink()
