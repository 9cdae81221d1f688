"""Every file-system error a user can cause with an output path (issue 10, item 3): `generate -o`, `build -o`,
`plan --plot` and `run --plot` onto a file, below a file, into a missing directory, onto a read-only file system,
an immutable directory or a full disk. Each is one line on stderr naming the path and the reason, exit status 2,
checked before the long work, and leaves nothing at the destination or beside it. A mounted output directory and
a move across file systems work.

We run as root, so "unwritable" is real: read-only and tiny tmpfs mounts, `chattr +i` (each case is skipped, with
the reason, where the sandbox does not allow it). The commands run in-process through cli.main (fast); one runs
as a child process, as a user would.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware_gen import cli
from firmware_gen.modelgen import zoo
from firmware_gen.output_paths import move

from conftest import run_cli

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "tiny_cnn.tflite"
    path.write_bytes(zoo.tiny_cnn())
    return path


@contextlib.contextmanager
def _mounted(where: Path, options: str) -> Iterator[Path]:
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}): needs root in a "
                    "sandbox that allows mounts")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str, str], Path]]:
    """Mounts a tmpfs at tmp_path/NAME with OPTIONS, unmounted after the test."""
    with contextlib.ExitStack() as mounts:
        yield lambda name, options: mounts.enter_context(_mounted(tmp_path / name, options))


@pytest.fixture
def read_only(tmpfs: Callable[[str, str], Path]) -> Path:
    return tmpfs("ro", "size=64k,ro")


@pytest.fixture
def full_disk(tmpfs: Callable[[str, str], Path]) -> Path:
    return tmpfs("full", "size=16k")


@pytest.fixture
def mounted(tmpfs: Callable[[str, str], Path]) -> Path:
    return tmpfs("mnt", "size=8m")


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "immutable"
    where.mkdir()
    done = subprocess.run(["chattr", "+i", str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not allowed here ({done.stderr.strip()}): needs root on ext4 or similar")
    try:
        yield where
    finally:
        subprocess.run(["chattr", "-i", str(where)], check=True)


def _listing(directory: Path) -> dict[str, int]:
    """Every entry below directory (hidden ones too), with its size: a half-written file or a temporary sibling
    changes it."""
    return {str(p.relative_to(directory)): p.stat().st_size if p.is_file() else -1 for p in directory.rglob("*")}


def _refused(capsys: pytest.CaptureFixture, argv: list[str], path: Path, reason: str) -> None:
    """The command fails with exit 2 and one line naming `path` and `reason`; nothing new appears around `path`."""
    watched = next(p for p in (path.parent, *path.parent.parents) if p.is_dir())
    before = _listing(watched)
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("firmware-gen: error: ") and str(path) in err and reason in err, err
    assert _listing(watched) == before


def _generate(model: Path, out: Path) -> list[str]:
    return ["generate", str(model), "-o", str(out)]


def _plan(model: Path, png: Path) -> list[str]:
    return ["plan", str(model), "--plot", str(png)]


def test_generate_onto_a_file_or_below_one(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    file = tmp_path / "file"
    file.write_text("mine")
    _refused(capsys, _generate(model, file), file, "exists and is not a directory")
    _refused(capsys, _generate(model, file / "out"), file / "out", f"{file} is not a directory")
    assert file.read_text() == "mine"


def test_generate_onto_a_read_only_file_system(model: Path, read_only: Path, capsys: pytest.CaptureFixture) -> None:
    _refused(capsys, _generate(model, read_only), read_only, "Read-only file system")
    _refused(capsys, _generate(model, read_only / "out"), read_only / "out", "Read-only file system")


def test_generate_into_an_unwritable_directory(model: Path, immutable: Path, capsys: pytest.CaptureFixture) -> None:
    _refused(capsys, _generate(model, immutable / "out"), immutable / "out", "Operation not permitted")


def test_generate_onto_a_full_disk(model: Path, full_disk: Path, capsys: pytest.CaptureFixture) -> None:
    """The probe passes (an empty file fits); the sources do not: the scratch directory goes, nothing is left."""
    _refused(capsys, _generate(model, full_disk / "out"), full_disk / "out", "No space left on device")
    assert not list(full_disk.iterdir())


def test_generate_into_an_existing_directory_on_a_full_disk_keeps_the_old_files(
        model: Path, full_disk: Path, capsys: pytest.CaptureFixture) -> None:
    old = full_disk / "out"
    old.mkdir()
    (old / "model.c").write_text("/* the previous model */")
    _refused(capsys, _generate(model, old), old, "No space left on device")
    assert (old / "model.c").read_text() == "/* the previous model */"


def test_generate_onto_a_mounted_directory(model: Path, mounted: Path, capsys: pytest.CaptureFixture) -> None:
    """The scratch directory is made on the output's own file system: no cross-device rename, nothing left."""
    for _ in range(2):  # new, then regenerated in place
        assert cli.main(_generate(model, mounted)) == 0, capsys.readouterr().err
        names = sorted(p.name for p in mounted.iterdir())
        assert "model.c" in names and "runtime" in names and not [n for n in names if n.startswith(".")]


def test_generate_makes_missing_parents(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "a" / "b" / "out"
    assert cli.main(_generate(model, out)) == 0, capsys.readouterr().err
    assert (out / "model.c").is_file() and sorted(p.name for p in out.parent.iterdir()) == ["out"]


def test_plot_paths_are_refused_before_planning(model: Path, tmp_path: Path, read_only: Path, immutable: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    file = tmp_path / "file"
    file.write_text("mine")
    _refused(capsys, _plan(model, tmp_path / "nowhere" / "plan.png"), tmp_path / "nowhere" / "plan.png",
             "no such directory")
    _refused(capsys, _plan(model, file / "plan.png"), file / "plan.png", f"{file} is not a directory")
    _refused(capsys, _plan(model, tmp_path), tmp_path, "is a directory")
    _refused(capsys, _plan(model, read_only / "plan.png"), read_only / "plan.png", "Read-only file system")
    _refused(capsys, _plan(model, immutable / "plan.png"), immutable / "plan.png", "Operation not permitted")


def test_plot_onto_a_full_disk_keeps_the_old_png(model: Path, full_disk: Path, capsys: pytest.CaptureFixture) -> None:
    png = full_disk / "plan.png"
    png.write_bytes(b"the previous plot")
    _refused(capsys, _plan(model, png), png, "No space left on device")
    assert png.read_bytes() == b"the previous plot"


def test_plot_written_whole_with_nothing_beside_it(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    png = tmp_path / "plan.png"
    assert cli.main(_plan(model, png)) == 0, capsys.readouterr().err
    assert png.read_bytes().startswith(b"\x89PNG") and [p.name for p in tmp_path.iterdir()] == ["plan.png"]
    assert png.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_build_and_run_check_their_outputs_before_the_work(model: Path, tmp_path: Path, read_only: Path,
                                                           capsys: pytest.CaptureFixture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """No cross build, no QEMU: each is refused before either starts (any tool started is recorded)."""
    from firmware_gen.target import cross_build

    started: list[list[str]] = []
    monkeypatch.setattr(cross_build, "_run", lambda command: started.append(command))
    monkeypatch.setattr(subprocess, "Popen", lambda command, *a, **k: started.append(command))
    file = tmp_path / "file"
    file.write_text("mine")
    _refused(capsys, ["build", str(model), "--board", "mps2_an385", "-o", str(file)], file,
             "exists and is not a directory")
    _refused(capsys, ["build", str(model), "--board", "mps2_an385", "-o", str(read_only / "fw")], read_only / "fw",
             "Read-only file system")
    _refused(capsys, ["run", str(model), "--board", "mps2_an385", "--plot", str(read_only / "p.png")],
             read_only / "p.png", "Read-only file system")
    assert started == []


def test_a_move_across_file_systems_copies_then_renames(tmp_path: Path, mounted: Path) -> None:
    source = tmp_path / "source"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "a.c").write_text("int a;")
    with pytest.raises(OSError) as error:
        os.rename(source, mounted / "moved")
    assert error.value.errno == errno.EXDEV  # the case move() is for
    move(source, mounted / "moved")
    assert (mounted / "moved" / "sub" / "a.c").read_text() == "int a;" and not source.exists()
    (tmp_path / "one.txt").write_text("one")
    move(tmp_path / "one.txt", mounted / "one.txt")
    assert sorted(p.name for p in mounted.iterdir()) == ["moved", "one.txt"]


def test_a_user_sees_one_line_and_no_traceback(model: Path, read_only: Path) -> None:
    done = run_cli(*_generate(model, read_only / "out"), timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"firmware-gen: error: -o {read_only / 'out'}: cannot write in {read_only} "
                                        "(Read-only file system)"]


@pytest.mark.parametrize("size", ["64k", "600k"], ids=["generate-fails", "compile-fails"])
def test_build_onto_a_full_disk_names_the_output(model: Path, tmpfs: Callable[[str, str], Path], size: str,
                                                  capsys: pytest.CaptureFixture, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fills while the C is written (64 KiB) or while gcc writes its objects (600 KiB): our one line
    naming -o, not gcc's words about a hidden folder; nothing is left. Its own cache: a cached build would be
    copied, not compiled."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    full = tmpfs("full", f"size={size}")
    assert cli.main(["build", str(model), "--board", "mps2_an385", "-o", str(full / "fw")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.splitlines()[-1] == (f"firmware-gen: error: -o {full / 'fw'}: cannot write "
                                                               "(No space left on device)"), err
    assert not list(full.iterdir())


def test_a_generate_killed_midway_leaves_a_scratch_directory_the_next_run_removes(
        model: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """SIGKILL (no handler runs) while the scratch directory is being filled, into an existing directory."""
    out = tmp_path / "out"
    assert cli.main(_generate(model, out)) == 0, capsys.readouterr().err
    killed = ("import os, signal, sys; from firmware_gen import cli; from firmware_gen.backend import codegen\n"
              "codegen.write_manifest = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
              "cli.main(sys.argv[1:])\n")
    done = subprocess.run([sys.executable, "-c", killed, *_generate(model, out)], capture_output=True)
    assert done.returncode == -signal.SIGKILL
    left = [p.name for p in out.iterdir() if p.name.startswith(".")]
    assert len(left) == 1 and ".fg-scratch-" in left[0]
    assert cli.main(_generate(model, out)) == 0, capsys.readouterr().err
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]
