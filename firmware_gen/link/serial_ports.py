"""The serial port of a real board: find it by its debug probe's USB ids, open it with errors that say what to do.

A board's probe (ST-LINK, J-Link OB, DAPLink) shows up as a USB serial device (/dev/ttyACM0, COM5...) with the
probe's vendor and product ids, and usually the probe's serial number, which is also the id pyOCD gives it: so
`--probe ID` picks the port as well as the probe. Opening is exclusive: two programs reading one port each get
half of the bytes.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator, Sequence
from typing import Any

import serial
from serial.tools import list_ports

from firmware_gen.errors import UserError
from firmware_gen.link.framing import LinkStalled
from firmware_gen.target.boards import Board, load_board


class BoardPortError(UserError):
    """No serial port for the board, several candidates, or one that cannot be opened."""


def _usb_id(vid: int, pid: int) -> str:
    return f"{vid:04x}:{pid:04x}"


def describe_port(port: Any) -> str:
    """One port of list_ports, as a user reads it: device, USB ids, serial number, description."""
    usb = f" USB {_usb_id(port.vid, port.pid)}" if port.vid is not None and port.pid is not None else ""
    serial_number = f" serial {port.serial_number}" if getattr(port, "serial_number", None) else ""
    description = port.description if port.description and port.description != "n/a" else ""
    return f"{port.device} ({', '.join(p for p in (usb.strip(), serial_number.strip(), description) if p)})"


def _present(ports: Sequence[Any]) -> str:
    return "serial ports present: " + (", ".join(describe_port(p) for p in ports) if ports else "none")


def find_board_port(board: Board, probe_id: str | None = None, ports: Sequence[Any] | None = None) -> str:
    """The device of the board's serial port among `ports` (default: list_ports.comports()): the one whose USB
    ids are the board's probe's, narrowed to the probe whose serial number contains probe_id when given."""
    if board.probe is None:
        raise BoardPortError(f"{board.name} is emulated by QEMU: it has no serial port to look for")
    ports = list(list_ports.comports()) if ports is None else list(ports)
    wanted = set(board.probe.usb_ids)
    ids = ", ".join(_usb_id(*i) for i in board.probe.usb_ids)
    matches = [p for p in ports if (p.vid, p.pid) in wanted]
    if probe_id:
        matches = [p for p in matches if probe_id.lower() in (p.serial_number or "").lower()]
    what = f"{board.probe.name} (USB {ids}{f', serial number containing {probe_id}' if probe_id else ''})"
    if not matches and board.estimate_on:
        raise BoardPortError(f"{_no_emulator_hint(board, what)}; {_present(ports)}")
    if not matches:
        raise BoardPortError(f"no serial port of a {what} found: plug {board.name} in (the USB connector of its "
                             f"probe), or name the port with --port; {_present(ports)}")
    if len(matches) > 1:
        raise BoardPortError(_several_ports(what, matches))
    return matches[0].device


def _core_name(core: str) -> str:
    """cortex-m85 -> M85, cortex-m0plus -> M0+."""
    return core.removeprefix("cortex-").upper().replace("PLUS", "+")


def _no_emulator_hint(board: Board, what: str) -> str:
    """A board QEMU cannot stand in for (no machine with its core), not attached: where estimated cycles come from."""
    core, stand_in = _core_name(board.core), load_board(str(board.estimate_on))
    if stand_in.core == board.core:  # QEMU has the instruction set but no machine of this chip (RP2040)
        return (f"{board.name} is not attached (no serial port of a {what}) and QEMU has no machine of it; "
                f"estimated cycles: `firmware-gen run MODEL --board {stand_in.name} --cycles` runs the same code "
                f"with Cortex-{core} timings; or plug the board in, or name its port with --port")
    return (f"{board.name} is not attached (no serial port of a {what}) and QEMU has no Cortex-{core}; estimated "
            f"cycles: run the {_core_name(stand_in.core)} image with {core} timings, `firmware-gen run MODEL --board "
            f"{stand_in.name} --cycles` gives {_core_name(stand_in.core)} timings, `python bench/speed.py --cycles` "
            f"{core}'s; or plug the board in, or name its port with --port")


def _several_ports(what: str, matches: Sequence[Any]) -> str:
    """Several matching ports. One probe may show several (nRF52840-DK v3: two VCOMs, same USB id and serial
    number): then --probe cannot choose and only --port can."""
    listing = ", ".join(describe_port(p) for p in matches)
    serials = {(p.serial_number or "").lower() for p in matches}
    if len(serials) == 1:
        choices = " or ".join(f"--port {p.device}" for p in matches)
        number = next(iter(serials))
        same = f"all with serial number {number}" if number else "none with a serial number"
        return (f"{len(matches)} serial ports of a {what}, {same}: {listing}; --probe cannot tell them apart "
                f"(a probe may show several ports: nRF52840-DK v3 J-Link OBs show two): choose the board's console "
                f"with {choices}")
    return f"{len(matches)} serial ports of a {what}: {listing}; choose one with --port DEVICE or --probe SERIAL"


def open_board_port(device: str, baudrate: int) -> serial.SerialBase:
    """The port, open for the protocol (short read timeout, write deadline). A pyserial URL (socket://...) is
    opened as such; a device path is opened exclusively."""
    try:
        if "://" in device:
            return serial.serial_for_url(device, baudrate=baudrate, timeout=0.1, write_timeout=5)
        return serial.Serial(device, baudrate=baudrate, timeout=0.1, write_timeout=5, exclusive=True)
    except (serial.SerialException, ValueError) as error:
        raise BoardPortError(_open_failure(device, error)) from None


def _open_failure(device: str, error: Exception) -> str:
    code = getattr(error, "errno", None)
    text = str(error)
    if code == errno.ENOENT or "No such file" in text:
        return (f"no serial port {device}: the board is unplugged or the name is wrong; "
                f"{_present(list(list_ports.comports()))}")
    if code == errno.EACCES or "Permission denied" in text:
        return (f"no permission to open {device}: add yourself to its group (Debian/Ubuntu: "
                "sudo usermod -aG dialout $USER, then log in again)")
    if code in (errno.EBUSY, errno.EAGAIN) or "exclusively lock" in text or "busy" in text.lower():
        return (f"{device} is busy: another program has it open (a serial terminal, another firmware-gen, "
                "ModemManager); close it and try again")
    return f"cannot open the serial port {device}: {text}"


def silent_board_hint(board: Board, device: str, baudrate: int) -> str:
    expected = f"; {board.name}'s firmware talks at {board.uart_baud} baud" if board.uart_baud != baudrate else ""
    return (f"{board.name} on {device} stayed silent at {baudrate} baud{expected}: wrong baud rate? not flashed "
            f"with this model's firmware (firmware-gen flash MODEL --board {board.name})? wrong port? "
            "Reset the board and try again")


@contextlib.contextmanager
def board_link(board: Board, device: str, baudrate: int) -> Iterator[serial.SerialBase]:
    """The open port for one session, closed afterwards; a board that never answers the handshake gets a hint."""
    port = open_board_port(device, baudrate)
    try:
        yield port
    except LinkStalled as error:
        if "HELLO_REQUEST" not in str(error):
            raise
        raise LinkStalled(f"{error}; {silent_board_hint(board, device, baudrate)}") from None
    finally:
        port.close()
