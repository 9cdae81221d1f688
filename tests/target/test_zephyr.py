"""Zephyr without Zephyr (the real build and run are tests/target/test_zephyr_qemu.py's, with ../shared/zephyr's
tree): the module files of
`generate --zephyr`, its CMake building the model library with arm-none-eabi-gcc for a board's CPU through stand-ins
of the zephyr_* functions, and zephyr_app's main.c compiled on the host against stand-ins of printk and
k_cycle_get_32, its console output decoded and compared with TFLite Micro."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from target_fixtures import needs_cross_gcc

from firmware_gen import cli
from firmware_gen.abi import CounterKind
from firmware_gen.backend.zephyr_module import module_sources
from firmware_gen.check.oracle import run_tflm
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.link import zephyr_console
from firmware_gen.link.zephyr_console import ConsoleError, input_pattern, parse_console
from firmware_gen.manifest import read_manifest
from firmware_gen.modelgen import zoo
from firmware_gen.target.boards import load_board
from firmware_gen.target.zephyr_build import with_ccache_across_builds

ROOT = Path(__file__).resolve().parent.parent.parent
STUB = ROOT / "tests" / "fixtures" / "zephyr_stub"
APP = ROOT / "zephyr_app"
needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None,
                                 reason="cmake or ninja missing")


def _generate_module(folder: Path, name: str) -> tuple[bytes, Path]:
    data = getattr(zoo, name)()
    (folder / f"{name}.tflite").write_bytes(data)
    assert cli.main(["generate", str(folder / f"{name}.tflite"), "-o", str(folder / name), "--zephyr"]) == 0
    return data, folder / name


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """every_op (all the kernels) generated with --zephyr through the command line: (model bytes, directory)."""
    return _generate_module(tmp_path_factory.mktemp("zephyr"), "every_op")


@pytest.fixture(scope="module")
def int8_module(tmp_path_factory):
    """tiny_cnn, int8 in and out: the app's byte pattern is a valid input (every_op's are floats)."""
    return _generate_module(tmp_path_factory.mktemp("zephyr"), "tiny_cnn")


def test_generated_module_files(module):
    _, out = module
    assert (out / "zephyr" / "module.yml").read_text().splitlines()[1:] == [
        "name: firmware_gen_model", "build:", "  cmake: zephyr"]
    cmake = (out / "zephyr" / "CMakeLists.txt").read_text()
    assert "zephyr_library_named(firmware_gen_model)" in cmake
    sources = module_sources(out)
    assert sources[:2] == ["model.c", "model_weights.c"] and "runtime/kernels/convolution/conv2d_folded.c" in sources
    assert all(f"${{FG_MODEL_DIR}}/{name}" in cmake for name in sources)
    assert "zephyr_linker_sources(RAM_SECTIONS ${CMAKE_CURRENT_LIST_DIR}/fg_pool.ld)" in cmake
    snippet = (out / "zephyr" / "fg_pool.ld").read_text()
    assert "KEEP(*(.bss.fg_pool))" in snippet and "(NOLOAD)" in snippet and "__fg_pool_end" in snippet
    assert 'section(".bss.fg_pool")' in (out / "model.c").read_text()  # what the snippet claims


@needs_cross_gcc
@needs_cmake
@pytest.mark.parametrize("board", ["nrf52840dk", "qemu_cortex_m3", "nucleo_f746zg"])
def test_module_cmake_builds_the_model_library_for_the_boards_cpu(module, tmp_path, board):
    _, out = module
    flags = " ".join([*load_board(board).gcc_flags, "-Os", "-ffunction-sections", "-Wall", "-Wextra", "-Werror"])
    m7 = load_board(board).core == "cortex-m7"
    configure = subprocess.run(
        ["cmake", "-G", "Ninja", "-S", str(STUB), "-B", str(tmp_path), f"-DFIRMWARE_GEN_MODULE={out}",
         "-DCMAKE_SYSTEM_NAME=Generic", "-DCMAKE_C_COMPILER=arm-none-eabi-gcc",
         "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY", f"-DCMAKE_C_FLAGS={flags}",
         *(["-DCONFIG_CPU_CORTEX_M7=y"] if m7 else [])],  # what Zephyr's Kconfig gives an M7 SoC
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    assert f"linker snippet RAM_SECTIONS {out}/zephyr/fg_pool.ld" in configure.stdout
    built = subprocess.run(["cmake", "--build", str(tmp_path), "--verbose"], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    assert ("-DFG_CORE_CORTEX_M7" in built.stdout) == m7  # the kernels' M7 instruction order, as bare metal has it
    library = tmp_path / "module" / "libfirmware_gen_model.a"
    symbols = subprocess.run(["arm-none-eabi-nm", str(library)], capture_output=True, text=True, check=True).stdout
    assert " T fg_model_invoke" in symbols and " U fg_hook_step_begin" in symbols  # hooks on, for the app
    sections = subprocess.run(["arm-none-eabi-objdump", "-h", str(library)], capture_output=True, text=True,
                              check=True).stdout
    assert ".bss.fg_pool" in sections
    attributes = subprocess.run(["arm-none-eabi-readelf", "-A", str(library)], capture_output=True, text=True,
                                check=True).stdout
    assert "Tag_CPU_arch_profile: Microcontroller" in attributes
    assert ("Tag_ABI_VFP_args: VFP registers" in attributes) == ("-mfloat-abi=hard" in load_board(board).gcc_flags)


def test_app_on_the_host_prints_frames_that_decode_to_tflms_outputs(int8_module, tmp_path):
    data, out = int8_module
    program = tmp_path / "zephyr_app_host"
    sources = [APP / "src" / "main.c", ROOT / "runtime_c" / "firmware" / "fg_frames.c",
               ROOT / "runtime_c" / "firmware" / "fg_link.c", STUB / "stub_kernel.c",
               *(out / name for name in module_sources(out))]
    includes = [STUB, out, out / "runtime" / "include", ROOT / "runtime_c" / "firmware", ROOT / "runtime_c" / "ports"]
    compiled = subprocess.run(["gcc", "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", "-DFG_ENABLE_HOOKS",
                               *(f"-I{d}" for d in includes), *map(str, sources), "-o", str(program)],
                              capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    console = subprocess.run([str(program)], capture_output=True, text=True, timeout=60, check=True).stdout
    assert console.splitlines()[0].endswith(" on host_stub, k_cycle_get_32 at 1000000 Hz")
    run = parse_console("*** Booting Zephyr OS ***\n" + console)
    (tmp_path / "console.log").write_text(console)
    assert zephyr_console.main([str(tmp_path / "console.log")]) == 0
    interface = read_manifest(out).interface
    assert run.status == 0 and run.cycles_per_second == 1_000_000
    assert run.hello.counter == CounterKind.ZEPHYR_CYCLES and run.hello.num_steps == interface.num_steps
    assert len(run.profile.steps) == interface.num_steps and all(count > 0 for count in run.profile.steps)
    graph = read_model(data, "tiny_cnn")
    expected = run_tflm(data, input_pattern(interface), len(graph.tensors)).outputs
    for ours, spec, theirs in zip(run.outputs, interface.outputs, expected, strict=True):
        assert np.array_equal(spec.array_from(ours).ravel(), np.asarray(theirs).ravel())


def test_console_log_command(tmp_path, capsys):
    log = tmp_path / "console.log"
    log.write_text("no run here\n")
    assert zephyr_console.main([str(log)]) == 2
    assert "no zephyr_app run" in capsys.readouterr().err


def test_console_without_a_run_or_with_a_damaged_frame():
    with pytest.raises(ConsoleError, match="no zephyr_app run"):
        parse_console("*** Booting Zephyr OS ***\nhello\n")
    with pytest.raises(ConsoleError, match="damaged frame line"):
        parse_console("@FG 4647010a000000\n")


def test_main_stack_from_the_models_worst_case_stack(tmp_path):
    """The one value that sizes zephyr_app's main stack: the model's worst-case stack, in the module's
    main_stack.conf, which zephyr_app's CMake adds over prj.conf's 4 KiB fallback."""
    from firmware_gen.backend.zephyr_module import APP_STACK_BYTES, MAIN_STACK_FALLBACK_BYTES, write_zephyr_module

    _, out = _generate_module(tmp_path, "tiny_cnn")
    assert not (out / "zephyr" / "main_stack.conf").exists()  # generate knows no stack bound: the fallback
    assert f"CONFIG_MAIN_STACK_SIZE={MAIN_STACK_FALLBACK_BYTES}" in (APP / "prj.conf").read_text()
    write_zephyr_module(out, model_stack_bytes=5001)
    conf = (out / "zephyr" / "main_stack.conf").read_text()
    assert f"CONFIG_MAIN_STACK_SIZE={(5001 + APP_STACK_BYTES + 7) // 8 * 8}" in conf
    assert "zephyr/main_stack.conf" in (APP / "CMakeLists.txt").read_text()


def test_qemu_line_of_a_zephyr_board():
    """Zephyr's run_qemu command (BUILD.md's mps2_an521 line) made firmware-gen's: console on the host's socket,
    the second serial null, -icount at shift 0, no terminal, monitor, pid file or kernel of Zephyr's."""
    from firmware_gen.link.qemu import ZEPHYR_CONSOLE_SERIAL, qemu_command
    from firmware_gen.target.zephyr_build import CONSOLE_SERIAL, qemu_machine_args

    line = ("cd /b && /usr/bin/qemu-system-arm -cpu cortex-m33 -machine mps2-an521 -nographic -m 16 -vga none "
            "-net none -pidfile qemu.pid -chardev stdio,id=con,mux=on -serial chardev:con "
            "-mon chardev=con,mode=readline -icount shift=7,align=off,sleep=off -rtc clock=vm "
            "-chardev pty,id=hostS0 -serial chardev:hostS0 "
            "-kernel /b/zephyr/zephyr.elf")
    args = qemu_machine_args(line)
    assert CONSOLE_SERIAL == ZEPHYR_CONSOLE_SERIAL
    assert list(args) == ["-cpu", "cortex-m33", "-machine", "mps2-an521", "-m", "16", "-vga", "none", "-net", "none",
                          "-serial", CONSOLE_SERIAL, "-icount", "shift=0,align=off,sleep=off", "-rtc", "clock=vm",
                          "-serial", "null"]
    command = qemu_command(load_board("mps3_an547"), Path("/x.elf"), 4321, machine_args=args)
    assert "tcp:127.0.0.1:4321,server=on,wait=on" in command and CONSOLE_SERIAL not in command
    assert command[command.index("-kernel") + 1] == "/x.elf" and "enable=on,target=native" in command


def test_ccache_hashes_every_models_build_alike_unless_the_user_says_otherwise(tmp_path):
    """Each model's Zephyr build has a directory of its own in the cache (key/build): ccache sees paths under the
    cache's directory of builds relative to the build, without the build's own directory in the hash."""
    build = tmp_path / "zephyr-firmware" / "0123abcd" / "build"
    env = with_ccache_across_builds({"PATH": "/usr/bin"}, build)
    assert env == {"PATH": "/usr/bin", "CCACHE_BASEDIR": str(tmp_path / "zephyr-firmware"), "CCACHE_NOHASHDIR": "1"}
    own = {"CCACHE_BASEDIR": "/src", "CCACHE_NOHASHDIR": "0"}
    assert with_ccache_across_builds(own, build) == own
