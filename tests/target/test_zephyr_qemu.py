"""Zephyr for real (issue 26): zephyr_app built against the Zephyr 3.4.99 tree of ../shared/zephyr (extracted once
per test run into a directory the workers share) by `firmware-gen build|run|validate --zephyr`, run under QEMU with
each board's own QEMU line: bit-exact with TFLite Micro, a profile per step, counts within 1 % of bare metal in
total; README.md's "On Zephyr" commands run as written; and each bad input one line with exit status 2.

All in one worker (xdist group "zephyr"): the tree is extracted once and each build reused from its cache
(kws_ref_model on qemu_cortex_m3, built by the README's commands, serves the later tests). Skipped, with the reason,
without the tarball or the host tools. Not here: the two-model C++ application under Zephyr (see the issue)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_gen.target.boards import BOARDS_DIR, load_board

from conftest import REPO, ZEPHYR_TARBALL, run_cli, shared_model

pytestmark = pytest.mark.xdist_group("zephyr")
TOOLS = ("cmake", "ninja", "dtc", "arm-none-eabi-gcc", "qemu-system-arm")
TREE_NAME = "zephyr-3.4.99"
SECTION = "## Path 3: On Zephyr"


@pytest.fixture(scope="session")
def zephyr_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the extracted tree (zephyr-3.4.99/), shared by the workers of a run: extracted into a
    private directory and renamed into place whole, so a worker sees all of it or none."""
    if not ZEPHYR_TARBALL.exists():
        pytest.skip(f"{ZEPHYR_TARBALL} is not here (the Zephyr tests need the shared Zephyr tree)")
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} missing (bash scripts/bootstrap.sh installs them)")
    base = tmp_path_factory.getbasetemp()
    base = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = base / "zephyr-tree"
    if not (root / TREE_NAME / "zephyr" / "VERSION").is_file():
        private = base / f".zephyr-tree.{os.getpid()}.partial"
        private.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "xzf", str(ZEPHYR_TARBALL), "-C", str(private)], check=True, timeout=300)
        try:
            os.rename(private, root)
        except OSError:  # another worker was first
            shutil.rmtree(private, ignore_errors=True)
    return root


@pytest.fixture(scope="session")
def zephyr_base(zephyr_root: Path) -> str:
    return str(zephyr_root / TREE_NAME / "zephyr")


def _zephyr(*args: str, base: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = dict(os.environ if env is None else env)
    if base is not None:
        environment["ZEPHYR_BASE"] = base
    return subprocess.run([sys.executable, "-m", "firmware_gen", *args], capture_output=True, text=True,
                          timeout=900, cwd=REPO, env=environment)


def _readme_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    start = text.index(SECTION)
    section = text[start:text.index("\n## ", start + len(SECTION))]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)


def test_readme_on_zephyr_commands_run_against_the_tarball(zephyr_root: Path) -> None:
    """The tarball's block and the by-hand console build, run by bash in the directory the tree is extracted in
    (so the later tests find kws_ref_model's builds in the cache); the west block is the tarball's after west."""
    west, tarball, by_hand = _readme_blocks()
    assert west.splitlines()[:2] == ["west init zephyrproject && (cd zephyrproject && west update)",
                                     "export ZEPHYR_BASE=$PWD/zephyrproject/zephyr"]
    assert west.splitlines()[2:] == tarball.splitlines()[2:]
    for name in ("zephyr_app", "runtime_c"):  # zephyr_app/ reaches runtime_c/ beside it
        (zephyr_root / name).unlink(missing_ok=True)
        (zephyr_root / name).symlink_to(REPO / name)
    for link, target in (("zephyr-3.4.99-arm-qemu.tar.gz", ZEPHYR_TARBALL),
                         ("kws_ref_model.tflite", shared_model("kws_ref_model"))):
        (zephyr_root / link).unlink(missing_ok=True)
        (zephyr_root / link).symlink_to(target)
    shutil.rmtree(zephyr_root / "kws-zephyr", ignore_errors=True)
    shutil.rmtree(zephyr_root / "kws-build", ignore_errors=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("ZEPHYR_BASE", None)
    script = "set -euo pipefail\n" + tarball + by_hand.replace("python ", f"{sys.executable} ")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=900, cwd=zephyr_root,
                          env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "timed by Zephyr's k_cycle_get_32() (SysTick)" in done.stdout  # run's profile
    assert "bit-exact" in done.stdout.lower()  # validate on mps3_an547
    assert "zephyr.elf for qemu_cortex_m3 under Zephyr 3.4.99" in done.stdout  # build -o
    assert (zephyr_root / "kws-zephyr" / "build" / "zephyr" / "zephyr.elf").is_file()
    assert re.search(r"status 0, [\d,]+ cycles at 12,000,000 Hz, 13 steps", done.stdout)  # the console decoded


def _json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.parametrize("model", ["person_detect", "vww_96_int8"])
def test_qemu_cortex_m3_bit_exact_with_a_profile_per_step(zephyr_base: str, model: str) -> None:
    path = str(shared_model(model))
    report = _json(_zephyr("validate", path, "--board", "qemu_cortex_m3", "--zephyr", "--json", base=zephyr_base))
    assert report["bit_exact"] is True
    run = _json(_zephyr("run", path, "--board", "qemu_cortex_m3", "--zephyr", "--json", base=zephyr_base))
    layers = run["profile"]
    assert layers and all(layer["count"] > 0 for layer in layers if layer["kernel"])
    assert any("Armv7-M" in layer["isa"] for layer in layers)  # the M3's kernel variants
    assert sum(layer["count"] for layer in layers) <= run["instructions"]


def test_kws_counts_within_one_percent_of_bare_metal(zephyr_base: str) -> None:
    path = str(shared_model("kws_ref_model"))
    zephyr = _json(_zephyr("run", path, "--board", "qemu_cortex_m3", "--zephyr", "--json", base=zephyr_base))
    bare = _json(run_cli("run", path, "--board", "qemu_cortex_m3", "--json"))
    assert zephyr["outputs"] == bare["outputs"]
    assert abs(zephyr["instructions"] - bare["instructions"]) <= 0.01 * bare["instructions"]
    steps = [(z["count"], b["count"]) for z, b in zip(zephyr["profile"], bare["profile"], strict=True)]
    big = [(z, b) for z, b in steps if b > 100_000]  # a step of a few ticks may be a tick or two off
    assert all(abs(z - b) <= 0.01 * b for z, b in big), steps


@pytest.mark.parametrize(("board", "isa"), [("mps2_an385", "Armv7-M"), ("mps2_an521", "Arm")])
def test_other_boards_bit_exact(zephyr_base: str, board: str, isa: str) -> None:
    """mps3_an547 (the M55's MVE kernels) is validated by the README's commands above. Zephyr's mps2_an521 runs on
    the SSE-200's CPU 0, which has no DSP (nor in QEMU): its kernels are the M33's without the DSP variants."""
    if not (BOARDS_DIR / f"{board}.toml").is_file():
        pytest.skip(f"no project board file boards/{board}.toml yet")
    path = str(shared_model("kws_ref_model"))
    report = _json(_zephyr("validate", path, "--board", board, "--zephyr", "--json", base=zephyr_base))
    assert report["bit_exact"] is True
    run = _json(_zephyr("run", path, "--board", board, "--zephyr", "--json", base=zephyr_base))
    isas = [layer["isa"] for layer in run["profile"]]
    assert any(isa in name for name in isas) and not any("DSP" in name for name in isas), isas


def _error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("firmware-gen: error: "), result.stderr
    return lines[0]


def test_bad_zephyr_base_board_and_tools(zephyr_base: str, tmp_path: Path) -> None:
    model = str(shared_model("kws_ref_model"))
    env = {k: v for k, v in os.environ.items() if k != "ZEPHYR_BASE"}
    assert "set ZEPHYR_BASE" in _error(_zephyr("run", model, "--board", "qemu_cortex_m3", "--zephyr", env=env))
    assert f"{tmp_path} is not a Zephyr tree" in _error(
        _zephyr("run", model, "--board", "qemu_cortex_m3", "--zephyr", base=str(tmp_path)))
    assert "has no board 'mps2_an386'" in _error(_zephyr("run", model, "--board", "mps2_an386", "--zephyr",
                                                          base=zephyr_base))
    no_cmake = {**os.environ, "PATH": str(tmp_path), "ZEPHYR_BASE": zephyr_base}
    assert "cmake not found" in _error(_zephyr("run", model, "--board", "qemu_cortex_m3", "--zephyr", env=no_cmake))


def test_cmake_failure_names_the_log_and_leaves_no_output(tmp_path: Path) -> None:
    """A tree whose CMake package fails: Zephyr's own message is in the log the error names."""
    tree = tmp_path / "broken" / "zephyr"
    (tree / "boards" / "arm" / "qemu_cortex_m3").mkdir(parents=True)
    (tree / "boards" / "arm" / "qemu_cortex_m3" / "qemu_cortex_m3_defconfig").write_text("")
    (tree / "VERSION").write_text("VERSION_MAJOR = 3\nVERSION_MINOR = 4\nPATCHLEVEL = 99\n")
    package = tree / "share" / "zephyr-package" / "cmake"
    package.mkdir(parents=True)
    (package / "ZephyrConfig.cmake").write_text('message(FATAL_ERROR "this Zephyr is broken on purpose")\n')
    out = tmp_path / "out"
    line = _error(_zephyr("build", str(shared_model("kws_ref_model")), "--board", "qemu_cortex_m3", "--zephyr",
                          "--json", "-o", str(out), base=str(tree)))  # --json: no progress lines
    log = Path(re.search(r"see (\S+\.log)", line).group(1))
    assert "Zephyr's CMake failed for board qemu_cortex_m3" in line
    assert "this Zephyr is broken on purpose" in log.read_text()
    assert not out.exists()


def test_a_model_that_does_not_fit_gets_the_fit_error(zephyr_base: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    line = _error(_zephyr("build", str(shared_model("person_detect")), "--board", "qemu_cortex_m3", "--zephyr",
                          "--no-overlap", "--no-io-in-pool", "--json", "-o", str(out), base=zephyr_base))
    assert re.search(r"the firmware does not fit: needs [\d,]+ B of RAM; qemu_cortex_m3 has 65,536 B under Zephyr "
                     r"\(workspace pool [\d,]+ B", line), line
    assert not out.exists()


def test_two_models_cxx_application_on_zephyr(zephyr_base: str, tmp_path: Path) -> None:
    """tests/fixtures/product_app's C++ application under Zephyr: both models modules of one Zephyr app (the speech
    model with --pool-from-app and --weights-section .ext_flash), one copy of the kernels, each output TFLM's."""
    import time

    import serial
    from product_models import APP_DIR, EXPECTED_POOL_STATUS, generate_models, parse_app_output, tflm_outputs

    from firmware_gen.backend.zephyr_module import write_zephyr_module
    from firmware_gen.link.qemu import start_qemu
    from firmware_gen.target.zephyr_build import qemu_machine_args, run_qemu_command
    from firmware_gen.target.zephyr_tree import build_environment, find_tree

    board = load_board("mps2_an385")
    tree = find_tree(zephyr_base)
    for folder in generate_models(tmp_path / "models", shared_model, isa=board.isa).values():
        write_zephyr_module(folder)
    build, env = tmp_path / "build", build_environment(tree)
    configure = ["cmake", "-GNinja", "-S", str(APP_DIR.parent / "product_app_zephyr"), "-B", str(build),
                 f"-DBOARD={board.name}", f"-DMODELS={tmp_path / 'models'}", f"-DPython3_EXECUTABLE={sys.executable}",
                 f"-DZEPHYR_MODULES={';'.join(map(str, tree.modules))}"]
    for command in (configure, ["ninja", "-C", str(build)]):
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    elf = build / "zephyr" / "zephyr.elf"
    symbols = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    assert symbols.count(" fg_fully_connected_s8\n") <= 1 and " kws_model_invoke" in symbols
    received = b""
    with start_qemu(board, elf, timeout=120, machine_args=qemu_machine_args(run_qemu_command(build, env))) as qemu:
        qemu.link.timeout = 0.2
        deadline = time.monotonic() + 120
        finished = re.compile(rb"\nkws: [0-9a-f]*\r?\n")
        while finished.search(received) is None and time.monotonic() < deadline:
            try:
                received += qemu.link.read(max(1, qemu.link.in_waiting))
            except serial.SerialException:
                break
    pool, invoked, outputs = parse_app_output(received.decode(errors="replace").replace("\r\n", "\n"))
    assert pool == EXPECTED_POOL_STATUS and invoked == [0, 0]
    assert outputs == tflm_outputs(shared_model)
