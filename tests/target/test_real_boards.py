"""Real boards, tested without them: board files against the datasheets, linker scripts, -Werror builds without
semihosting, serial port discovery on fake list_ports entries, opening errors, a silent board, pyOCD flashing with
a fake pyOCD, and the CLI's errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import types
from types import SimpleNamespace

import pytest
from target_fixtures import FIXTURE_MODEL, needs_cross_gcc

from firmware_gen import cli
from firmware_gen.driver.deploy import prepare
from firmware_gen.link import flashing
from firmware_gen.link import serial_ports as board_port
from firmware_gen.link.flashing import FlashError, ProbeInfo, choose_probe
from firmware_gen.link.framing import LinkStalled
from firmware_gen.link.runner import run_model
from firmware_gen.link.serial_ports import BoardPortError, find_board_port, open_board_port
from firmware_gen.modelgen import zoo
from firmware_gen.target.boards import BOARDS_DIR, BoardError, list_boards, load_board
from firmware_gen.target.cross_build import build_firmware
from firmware_gen.target.linker_script import render_linker_script

REAL_BOARDS = ["ek_ra8d1", "frdm_k64f", "nrf52840dk", "nrf5340dk", "nucleo_f746zg", "nucleo_g071rb", "nucleo_u575zi_q",
               "rp2040_pico"]
# (region name, origin, size) from the datasheets / reference manuals.
DATASHEET_REGIONS = {
    "ek_ra8d1": [("code flash", 0x02000000, 2 << 20), ("SRAM", 0x22000000, 896 << 10), ("DTCM", 0x20000000, 64 << 10)],
    "nucleo_f746zg": [("flash", 0x08000000, 1 << 20), ("DTCM", 0x20000000, 64 << 10),
                      ("SRAM1+SRAM2", 0x20010000, 256 << 10)],
    "nrf52840dk": [("flash", 0x00000000, 1 << 20), ("RAM", 0x20000000, 256 << 10)],
    "nucleo_g071rb": [("flash", 0x08000000, 128 << 10), ("SRAM", 0x20000000, 36 << 10)],
    "nrf5340dk": [("flash", 0x00000000, 1 << 20), ("RAM", 0x20000000, 512 << 10)],
    "nucleo_u575zi_q": [("flash", 0x08000000, 2 << 20), ("SRAM1-3", 0x20000000, 768 << 10),
                        ("SRAM4", 0x28000000, 16 << 10)],
    "frdm_k64f": [("flash", 0x00000000, 1 << 20), ("SRAM_L", 0x1FFF0000, 64 << 10),
                  ("SRAM_U", 0x20000000, 192 << 10)],
    "rp2040_pico": [("flash", 0x10000000, 2 << 20), ("SRAM0-3", 0x20000000, 256 << 10),
                    ("SRAM4", 0x20040000, 4 << 10), ("SRAM5", 0x20041000, 4 << 10)],
}


def test_real_boards_are_listed_apart_from_qemu_machines():
    assert list_boards(emulated=False) == REAL_BOARDS
    assert not set(REAL_BOARDS) & set(list_boards(emulated=True))


@pytest.mark.parametrize("name", REAL_BOARDS)
def test_board_file_matches_the_datasheet(name):
    board = load_board(name)
    assert not board.emulated and board.qemu_machine is None
    assert [(r.name, r.origin, r.size) for r in board.regions] == DATASHEET_REGIONS[name]
    # the Cortex-M0+ has no DWT cycle counter: SysTick on the core clock
    assert board.cycle_counter == ("systick" if board.core == "cortex-m0plus" else "dwt")
    assert board.systick_hz == board.core_hz
    assert board.probe is not None and board.probe.usb_ids and board.probe.pyocd_target
    script = render_linker_script(board)
    for region in board.regions:
        assert f"ORIGIN = 0x{region.origin:08X}, LENGTH = 0x{region.size:X}" in script


def test_clocks_uarts_and_probes():
    nucleo, nrf, k64f = (load_board(n) for n in ("nucleo_f746zg", "nrf52840dk", "frdm_k64f"))
    assert (nucleo.core_hz, nucleo.uart_kind, nucleo.uart_base) == (16_000_000, "stm32_usart", 0x40004800)
    assert round(nucleo.uart_clock_hz / nucleo.uart_baud) == 139  # BRR at the reset clock
    assert (nrf.core_hz, nrf.uart_kind, nrf.uart_base, nrf.uart_pins) == (64_000_000, "nrf_uarte", 0x40002000, (6, 8))
    assert (k64f.core_hz, k64f.uart_kind, k64f.uart_base) == (20_971_520, "kinetis_uart", 0x4006A000)
    assert divmod(round(2 * k64f.uart_clock_hz / k64f.uart_baud), 32) == (11, 12)  # SBR, BRFA
    assert (0x0483, 0x374B) in nucleo.probe.usb_ids and nucleo.probe.pyocd_pack
    assert k64f.probe.usb_ids == ((0x0D28, 0x0204),) and k64f.probe.pyocd_target == "k64f"
    assert nrf.probe.pyocd_target == "nrf52840" and all(vid == 0x1366 for vid, _ in nrf.probe.usb_ids)


def test_the_cortex_m0plus_nucleo():
    g0 = load_board("nucleo_g071rb")
    assert (g0.core, g0.core_hz, g0.uart_kind, g0.uart_base) == ("cortex-m0plus", 16_000_000, "stm32_usart", 0x40004400)
    assert round(g0.uart_clock_hz / g0.uart_baud) == 139  # BRR at the reset clock
    assert g0.isa.name == "Armv6-M" and g0.probe.pyocd_pack and (0x0483, 0x374B) in g0.probe.usb_ids


def test_cortex_m33_boards_clocks_uarts_and_probes():
    u575, nrf53 = load_board("nucleo_u575zi_q"), load_board("nrf5340dk")
    assert (u575.core, u575.core_hz, u575.uart_kind, u575.uart_base) == ("cortex-m33", 4_000_000, "stm32_usart",
                                                                          0x40013800)
    assert round(u575.uart_clock_hz / u575.uart_baud) == 139  # BRR from HSI16
    assert (nrf53.core_hz, nrf53.uart_base, nrf53.uart_pins, nrf53.uart_rts_pin) == (64_000_000, 0x50008000,
                                                                                       (20, 22), 19)
    assert nrf53.uart_gpio_base == 0x50842000  # + 0x500: P0's Secure registers
    assert u575.probe.pyocd_pack and nrf53.probe.pyocd_pack  # neither is built into pyOCD
    assert all(load_board(b).isa.has(frozenset({"dsp"})) for b in ("nucleo_u575zi_q", "nrf5340dk"))


def test_cortex_m85_board_builds_helium_code_for_the_ra8d1():
    ra8 = load_board("ek_ra8d1")
    assert ra8.core == "cortex-m85" and ra8.isa.has(frozenset({"dsp", "mve"}))
    assert "-march=armv8.1-m.main+mve.fp+fp.dp" in ra8.gcc_flags  # GCC 12 has no -mcpu=cortex-m85
    assert (ra8.uart_kind, ra8.uart_base, ra8.core_hz, ra8.estimate_on) == ("renesas_sci_b", 0x40358900, 8_000_000,
                                                                            "mps3_an547")


@needs_cross_gcc
def test_cortex_m85_build_runs_the_helium_kernels_and_fits(tmp_path):
    deployment = prepare(zoo.small_mobilenet(), "small_mobilenet.tflite", "ek_ra8d1", out_dir=tmp_path)
    functions = {call.function for call in deployment.compiled.calls.values()}
    assert {"fg_conv2d_pointwise_s8_mve", "fg_depthwise_conv2d_3x3_s8_mve"} <= functions
    assert deployment.firmware.fits and "vqrdmulh.s32" in _objdump(deployment.firmware.elf, "-d")


def test_sci_b_bit_rate_with_modulation():
    """8 base clocks per bit, N + 1 = clock / (8 baud) rounded down, MDDR / 256 taking the rest."""
    ra8 = load_board("ek_ra8d1")
    divisor = ra8.uart_clock_hz // (8 * ra8.uart_baud)
    mddr = round(256 * 8 * ra8.uart_baud * divisor / ra8.uart_clock_hz)
    assert (divisor - 1, mddr) == (7, 236)
    assert abs(ra8.uart_clock_hz / (8 * divisor) * mddr / 256 / ra8.uart_baud - 1) < 0.001


def test_a_stand_in_without_the_cores_features_is_refused(tmp_path):
    path = tmp_path / "ra8_on_m33.toml"
    path.write_text((BOARDS_DIR / "ek_ra8d1.toml").read_text().replace('estimate_on = "mps3_an547"',
                                                                        'estimate_on = "mps2_an521"'))
    with pytest.raises(BoardError, match=rf"{path}: cpu.estimate_on 'mps2_an521' is not a QEMU board with every "
                                         r"feature of cortex-m85 \(\['dsp', 'mve'\]\)"):
        load_board(str(path))


def test_kinetis_flash_configuration_field_is_pinned_at_0x400():
    script = render_linker_script(load_board("frdm_k64f"))
    assert script.index("KEEP(*(.vectors))") < script.index(". = 0x400;") < script.index("KEEP(*(.fg_flash_config))")
    assert "__fg_flash_config_end - __fg_flash_config_start == 16" in script
    assert ".fg_flash_config" not in render_linker_script(load_board("nrf52840dk"))


def test_a_real_board_file_without_a_probe_is_refused(tmp_path):
    broken = tmp_path / "noprobe.toml"
    broken.write_text((BOARDS_DIR / "nrf52840dk.toml").read_text().split("[probe]")[0])
    with pytest.raises(BoardError, match=r"needs a \[probe\] section"):
        load_board(str(broken))


def _objdump(elf, *flags):
    return subprocess.run(["arm-none-eabi-objdump", *flags, str(elf)], capture_output=True, text=True,
                          check=True).stdout


@needs_cross_gcc
@pytest.mark.parametrize("name", REAL_BOARDS)
def test_real_board_build_has_no_semihosting_and_fits(tmp_path, name):
    build = build_firmware(FIXTURE_MODEL, name, tmp_path, semihosting=False)
    assert build.fits and 2000 < build.flash_bytes < 6000
    assert build.regions[0].origin == load_board(name).region_for("code").origin
    disassembly = _objdump(build.elf, "-d")
    assert "bkpt" not in disassembly  # a semihosting call would fault without a debugger
    assert "<fg_board_init>:" in disassembly and "<fg_uart_flush>:" in disassembly
    if name == "frdm_k64f":
        dump = _objdump(build.elf, "-s", "-j", ".text", "--start-address=0x40c", "--stop-address=0x410")
        assert "feffffff" in dump  # FSEC = 0xFE: unsecured


@pytest.mark.parametrize("name", REAL_BOARDS)
def test_board_ports_compile_with_werror_on_the_host_syntax_check(name):
    """The register-level drivers also pass the host compiler's -Wall -Wextra -Werror (syntax and types)."""
    board = load_board(name)
    ports = FIXTURE_MODEL.parent.parent.parent / "runtime_c" / "ports"
    defines = [f"-DFG_UART_BASE=0x{board.uart_base:08X}u", f"-DFG_UART_BAUD={board.uart_baud}u",
               f"-DFG_UART_CLOCK_HZ={board.uart_clock_hz}u", "-DFG_UART_TX_PIN=6u", "-DFG_UART_RX_PIN=8u"]
    for source in (ports / f"uart_{board.uart_kind}.c", ports / f"board_{board.init}.c"):
        done = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{ports}",
                               *defines, str(source)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


# Serial port discovery.

def _port(device, vid=None, pid=None, serial_number=None, description="n/a"):
    return SimpleNamespace(device=device, vid=vid, pid=pid, serial_number=serial_number, description=description)


FAKE_PORTS = [
    _port("/dev/ttyS0"),
    _port("/dev/ttyUSB0", 0x0403, 0x6001, "A50285BI", "FT232R USB UART"),
    _port("/dev/ttyACM0", 0x0483, 0x374B, "066DFF485056", "STM32 STLink"),
    _port("/dev/ttyACM1", 0x0D28, 0x0204, "0240000032044e45", "DAPLink CMSIS-DAP"),
]


def test_port_found_by_the_probes_usb_ids():
    assert find_board_port(load_board("nucleo_f746zg"), ports=FAKE_PORTS) == "/dev/ttyACM0"
    assert find_board_port(load_board("frdm_k64f"), ports=FAKE_PORTS) == "/dev/ttyACM1"


def test_no_port_for_the_board_lists_what_is_there():
    with pytest.raises(BoardPortError) as error:
        find_board_port(load_board("nrf52840dk"), ports=FAKE_PORTS)
    message = str(error.value)
    assert "no serial port of a J-Link OB (USB 1366:1015" in message and "--port" in message
    assert "/dev/ttyUSB0 (USB 0403:6001, serial A50285BI, FT232R USB UART)" in message


def test_several_boards_need_port_or_probe():
    ports = [*FAKE_PORTS, _port("/dev/ttyACM2", 0x0483, 0x374B, "0670FF3837", "STM32 STLink")]
    board = load_board("nucleo_f746zg")
    with pytest.raises(BoardPortError, match=r"2 serial ports of a ST-LINK/V2-1 .*/dev/ttyACM0.*/dev/ttyACM2.*--probe"):
        find_board_port(board, ports=ports)
    assert find_board_port(board, probe_id="0670ff", ports=ports) == "/dev/ttyACM2"
    with pytest.raises(BoardPortError, match="serial number containing nope"):
        find_board_port(board, probe_id="nope", ports=ports)


def test_missing_port_is_named(monkeypatch):
    monkeypatch.setattr(board_port.list_ports, "comports", lambda: FAKE_PORTS[1:2])
    with pytest.raises(BoardPortError, match=r"no serial port /dev/ttyNOPE9: the board is unplugged .*ttyUSB0"):
        open_board_port("/dev/ttyNOPE9", 115200)


def test_busy_port_is_named():
    controller, device = os.openpty()
    path = os.ttyname(device)
    first = open_board_port(path, 115200)
    try:
        with pytest.raises(BoardPortError, match=f"{path} is busy: another program has it open"):
            open_board_port(path, 115200)
    finally:
        first.close()
        os.close(controller)
        os.close(device)


@needs_cross_gcc
def test_silent_board_times_out_with_a_hint(tmp_path):
    """A pseudo-terminal nobody answers on stands for a board that is not flashed or runs at another baud rate."""
    build = build_firmware(FIXTURE_MODEL, "nucleo_f746zg", tmp_path, semihosting=False)
    controller, device = os.openpty()
    try:
        with pytest.raises(LinkStalled) as error:
            run_model(build, [bytes(16)], serial_url=os.ttyname(device), stall_timeout=1.0, baudrate=9600)
    finally:
        os.close(controller)
        os.close(device)
    message = str(error.value)
    assert "did not answer HELLO_REQUEST" in message and "stayed silent at 9600 baud" in message
    assert "talks at 115200 baud" in message and "firmware-gen flash MODEL --board nucleo_f746zg" in message


# Flashing with pyOCD.

def test_pyocd_missing_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyocd", None)
    monkeypatch.setitem(sys.modules, "pyocd.core", None)
    monkeypatch.setitem(sys.modules, "pyocd.core.helpers", None)
    with pytest.raises(FlashError, match=r"needs pyOCD, which is not installed: pip install 'firmware-gen\[boards\]'"):
        flashing.connected_probes()


def test_probe_choice():
    board = load_board("frdm_k64f")
    one, two = ProbeInfo("0240000032044e45", "DAPLink CMSIS-DAP"), ProbeInfo("066DFF485056", "STLink")
    assert choose_probe(board, [one], None) == one
    assert choose_probe(board, [one, two], "066d") == two
    with pytest.raises(FlashError, match="no debug probe found: connect frdm_k64f .* OpenSDA DAPLink"):
        choose_probe(board, [], None)
    with pytest.raises(FlashError, match=r"2 debug probes connected: 0240000032044e45 \(DAPLink.*--probe ID"):
        choose_probe(board, [one, two], None)
    with pytest.raises(FlashError, match="no debug probe matches --probe zzz"):
        choose_probe(board, [one, two], "zzz")


def test_qemu_boards_are_not_flashed(tmp_path):
    with pytest.raises(FlashError, match="QEMU boards are not flashed"):
        flashing.flash(load_board("mps2_an385"), tmp_path / "firmware.elf")


class _FakeProbe:
    unique_id = "066DFF485056"
    description = "STM32 STLink"


def _fake_pyocd(monkeypatch, calls, fail_with=None, builtin=("k64f", "nrf52840"), packs=("stm32f746zgtx",)):
    """A stand-in for the pyOCD API firmware-gen uses, recording the calls. builtin: the targets pyOCD knows
    itself; packs: those of the CMSIS packs installed (populate_target adds them to TARGET on demand)."""
    target = types.ModuleType("pyocd.target")
    target.TARGET = dict.fromkeys(builtin, object)
    target.normalise_target_type_name = lambda name: name.lower()

    class ManagedPacks:
        @staticmethod
        def populate_target(name):
            calls.append(("populate", name))
            if name.lower() in packs:
                target.TARGET[name.lower()] = object

    exceptions = types.ModuleType("pyocd.core.exceptions")
    exceptions.Error = type("Error", (Exception,), {})
    exceptions.TargetSupportError = type("TargetSupportError", (exceptions.Error,), {})

    class ConnectHelper:
        @staticmethod
        def get_all_connected_probes(blocking=True, unique_id=None, print_wait_message=True):
            calls.append(("probes", blocking, unique_id))
            return [_FakeProbe()]

    class Session:
        def __init__(self, probe, **options):
            calls.append(("session", probe.unique_id, options))
            self.target = SimpleNamespace(reset=lambda: calls.append(("reset",)))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            calls.append(("closed",))

    class FileProgrammer:
        def __init__(self, session):
            pass

        def program(self, path, file_format=None):
            if fail_with:
                raise fail_with(exceptions)
            calls.append(("program", path, file_format))

    modules = {"pyocd": types.ModuleType("pyocd"), "pyocd.core": types.ModuleType("pyocd.core"),
               "pyocd.core.helpers": SimpleNamespace(ConnectHelper=ConnectHelper),
               "pyocd.core.session": SimpleNamespace(Session=Session), "pyocd.core.exceptions": exceptions,
               "pyocd.flash": types.ModuleType("pyocd.flash"),
               "pyocd.flash.file_programmer": SimpleNamespace(FileProgrammer=FileProgrammer),
               "pyocd.target": target, "pyocd.target.pack": types.ModuleType("pyocd.target.pack"),
               "pyocd.target.pack.pack_target": SimpleNamespace(ManagedPacks=ManagedPacks)}
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def test_flash_programs_verifies_and_resets_through_the_one_probe(monkeypatch, tmp_path):
    calls = []
    _fake_pyocd(monkeypatch, calls)
    elf = tmp_path / "firmware.elf"
    probe = flashing.flash(load_board("nucleo_f746zg"), elf)
    assert probe.unique_id == "066DFF485056"
    assert ("session", "066DFF485056", {"target_override": "stm32f746zgtx"}) in calls
    assert calls[-3:] == [("program", str(elf), "elf"), ("reset",), ("closed",)]


def test_unknown_target_names_the_pack(monkeypatch, tmp_path):
    _fake_pyocd(monkeypatch, [], fail_with=lambda exceptions: exceptions.TargetSupportError("no such target"))
    with pytest.raises(FlashError, match="pyocd pack install stm32f746zg"):
        flashing.flash(load_board("nucleo_f746zg"), tmp_path / "firmware.elf")


def test_flash_without_the_boards_pack_names_it_and_its_install_command(monkeypatch, tmp_path, capsys):
    calls = []
    _fake_pyocd(monkeypatch, calls, packs=())
    with pytest.raises(FlashError) as error:
        flashing.flash(load_board("nucleo_f746zg"), tmp_path / "firmware.elf")
    message = str(error.value)
    assert "no target 'stm32f746zgtx'" in message and "Keil.STM32F7xx_DFP" in message
    assert message.endswith("install it once with: pyocd pack install stm32f746zg")
    assert not [c for c in calls if c[0] in ("probes", "program")]  # refused before touching a probe


def test_flash_with_the_pack_installed_or_a_built_in_target(monkeypatch, tmp_path):
    calls = []
    _fake_pyocd(monkeypatch, calls)
    flashing.flash(load_board("nucleo_f746zg"), tmp_path / "firmware.elf")
    assert ("populate", "stm32f746zgtx") in calls and ("reset",) in calls
    calls.clear()
    flashing.flash(load_board("nrf52840dk"), tmp_path / "firmware.elf")
    assert not [c for c in calls if c[0] == "populate"] and ("reset",) in calls


def test_one_probe_with_two_ports_asks_for_port_naming_both():
    """nRF52840-DK v3: the J-Link OB shows two serial ports with the same USB id and serial number."""
    twins = [_port(f"/dev/ttyACM{i}", 0x1366, 0x1051, "001050234567", "J-Link - CDC") for i in (3, 4)]
    board = load_board("nrf52840dk")
    for probe_id in (None, "1050234"):
        with pytest.raises(BoardPortError) as error:
            find_board_port(board, probe_id=probe_id, ports=[*FAKE_PORTS, *twins])
        message = str(error.value)
        assert "all with serial number 001050234567" in message and "--probe cannot tell them apart" in message
        assert message.endswith("--port /dev/ttyACM3 or --port /dev/ttyACM4")


# The command line.

def test_cli_run_on_a_real_board_without_its_port_fails_fast(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(board_port.list_ports, "comports", lambda: FAKE_PORTS[:2])
    model = tmp_path / "m.tflite"
    model.write_bytes(b"not read before the port is found")
    status = cli.main(["run", str(model), "--board", "frdm_k64f"])
    assert status == 2
    assert "no serial port of a OpenSDA DAPLink (USB 0d28:0204)" in capsys.readouterr().err


def test_cli_run_on_an_m85_without_the_board_says_where_estimated_cycles_come_from(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(board_port.list_ports, "comports", lambda: FAKE_PORTS[:2])
    model = tmp_path / "m.tflite"
    model.write_bytes(b"not read before the port is found")
    assert cli.main(["run", str(model), "--board", "ek_ra8d1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "QEMU has no Cortex-M85; estimated cycles: run the M55 image with M85 timings" in err
    assert ("`firmware-gen run MODEL --board mps3_an547 --cycles` gives M55 timings, "
            "`python bench/speed.py --cycles` M85's") in err


def test_cli_flash_refuses_qemu_boards(capsys):
    assert cli.main(["flash", "whatever.tflite", "--board", "qemu_cortex_m3"]) == 2
    assert "QEMU boards are not flashed" in capsys.readouterr().err


@needs_cross_gcc
def test_cli_flash_without_pyocd(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "pyocd", None)
    monkeypatch.setitem(sys.modules, "pyocd.core", None)
    monkeypatch.setitem(sys.modules, "pyocd.core.helpers", None)
    from firmware_gen.modelgen import zoo

    model = tmp_path / "add.tflite"
    model.write_bytes(zoo.every_op())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cli.main(["flash", str(model), "--board", "nrf52840dk"]) == 2
    assert "pip install 'firmware-gen[boards]'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def flash_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("flash-cache")


@needs_cross_gcc
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: signal.Signals(s).name)
def test_cli_flash_interrupted_while_programming(signum, monkeypatch, capsys, tmp_path, flash_cache):
    """A signal while pyOCD programs (issue 10): the probe's session is closed, the command exits 128 + signal,
    no temporary file is left, no half-built cache entry."""
    from firmware_gen.modelgen import zoo

    calls = []
    _fake_pyocd(monkeypatch, calls, fail_with=lambda exceptions: (os.kill(os.getpid(), signum), time.sleep(10),
                                                                  calls.append(("slept through the signal",))))
    model = tmp_path / "tiny_cnn.tflite"
    model.write_bytes(zoo.tiny_cnn())
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(flash_cache))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    assert cli.main(["flash", str(model), "--board", "nucleo_f746zg"]) == 128 + signum
    assert ("slept through the signal",) not in calls  # the signal ended the programming at once
    assert f"interrupted ({signal.Signals(signum).name})" in capsys.readouterr().err
    assert calls[-1] == ("closed",) and not [c for c in calls if c[0] == "program"]
    assert not list(tmp.iterdir()), f"temporary files left: {list(tmp.iterdir())}"
    assert not list((flash_cache / "firmware-gen" / "firmware").glob(".*")), "a private build directory was left"
