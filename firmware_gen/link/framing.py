"""The host side of the serial protocol of the profiling firmware (runtime_c/firmware/fg_protocol.h).

Frame: b"FG" | type (u8) | payload length (u32 LE) | payload | CRC-32 (zlib.crc32 of type, length and payload,
u32 LE). Every read and write has a deadline: a corrupted frame, a stalled or closed link raise LinkError, never hang.
The same code talks to QEMU (socket://127.0.0.1:PORT) and to a real board (/dev/ttyACM0): see open_link().
"""

from __future__ import annotations

import struct
import time
import zlib
from dataclasses import dataclass

import serial
from serial.urlhandler import protocol_socket

from firmware_gen.abi import FIRMWARE_ERROR_TEXT, FRAME_MAGIC, PROTOCOL_VERSION, CounterKind, FrameType
from firmware_gen.errors import UserError

MAX_PAYLOAD_BYTES = 64 << 20
MAX_SKIPPED_BYTES = 4096  # bytes tolerated before the first frame (a real board may print a banner)
_HEADER = struct.Struct("<BI")
_WRITE_CHUNK = 4096


class LinkError(UserError):
    """The serial link failed: corrupted frame, stall, closed connection, protocol violation."""


class LinkStalled(LinkError):
    """Nothing arrived within the time allowed."""


class FirmwareFault(UserError):
    """The firmware took a fault (HardFault...) and reported it."""


@dataclass(frozen=True)
class Frame:
    type: int
    payload: bytes


def encode_frame(frame_type: int, payload: bytes) -> bytes:
    header = _HEADER.pack(frame_type, len(payload))
    return FRAME_MAGIC + header + payload + struct.pack("<I", zlib.crc32(header + payload))


class _SocketKeepingFirstBytes(protocol_socket.Serial):
    """pyserial's socket:// port, except that opening it keeps what the other end has already sent: pyserial
    discards it, and QEMU (serial wait=on) starts the guest the moment the connection is accepted, so a Zephyr
    console's first lines could be gone on a loaded machine before open() returned."""

    _opening = False

    def open(self) -> None:
        self._opening = True
        try:
            super().open()
        finally:
            self._opening = False

    def reset_input_buffer(self) -> None:
        if not self._opening:
            super().reset_input_buffer()


def open_link(url: str, baudrate: int = 115200) -> serial.SerialBase:
    """A serial port by pyserial URL or device path: socket://HOST:PORT (QEMU), /dev/ttyACM0 (a board)."""
    try:
        if not url.startswith("socket://"):
            return serial.serial_for_url(url, baudrate=baudrate, timeout=0.1, write_timeout=5)
        port = _SocketKeepingFirstBytes(None, baudrate=baudrate, timeout=0.1, write_timeout=5)
        port.port = url
        port.open()
        return port
    except (serial.SerialException, ValueError) as error:
        raise LinkError(f"cannot open the serial link {url}: {error}") from None


class Link:
    """Frames over an open pyserial port. stall_timeout bounds the silence inside a frame and between frames."""

    def __init__(self, port: serial.SerialBase, stall_timeout: float = 10.0) -> None:
        self.port = port
        self.stall_timeout = stall_timeout

    def send(self, frame_type: int, payload: bytes) -> None:
        data = encode_frame(frame_type, payload)
        self.port.write_timeout = self.stall_timeout
        try:
            for start in range(0, len(data), _WRITE_CHUNK):
                self.port.write(data[start:start + _WRITE_CHUNK])
            self.port.flush()
        except serial.SerialTimeoutException:
            raise LinkStalled(f"the link stalled: the target took no data for {self.stall_timeout:g} s while the "
                            f"host sent a {FrameType(frame_type).name} frame of {len(payload):,} B") from None
        except serial.SerialException as error:
            raise LinkError(f"the link closed while sending a {FrameType(frame_type).name} frame ({error})") from None

    def receive(self, wait: float | None = None) -> Frame:
        """The next frame. wait: how long the first byte may take (default stall_timeout), e.g. a model run."""
        skipped = 0
        previous = self._read(1, wait, "the next frame")
        while True:
            byte = self._read(1, None, "a frame start")
            if previous == FRAME_MAGIC[:1] and byte == FRAME_MAGIC[1:]:
                break
            skipped += 1
            if skipped > MAX_SKIPPED_BYTES:
                raise LinkError(f"no frame on the link: {skipped} bytes without the frame marker")
            previous = byte
        header = self._read(_HEADER.size, None, "a frame header")
        frame_type, length = _HEADER.unpack(header)
        if length > MAX_PAYLOAD_BYTES:
            raise LinkError(f"corrupted frame: header announces {length:,} B of payload (type 0x{frame_type:02x})")
        payload = self._read(length, None, f"a {length:,}-byte payload")
        (crc,) = struct.unpack("<I", self._read(4, None, "a frame CRC"))
        if crc != zlib.crc32(header + payload):
            raise LinkError(f"corrupted frame: CRC mismatch on a frame of type 0x{frame_type:02x} "
                            f"with {length:,} B of payload")
        return Frame(frame_type, payload)

    def _read(self, size: int, wait: float | None, what: str) -> bytes:
        data = bytearray()
        limit = self.stall_timeout if wait is None else wait
        last_progress = time.monotonic()
        while len(data) < size:
            try:
                chunk = self.port.read(size - len(data))
            except serial.SerialException as error:
                raise LinkError(f"the link closed while waiting for {what} ({error})") from None
            now = time.monotonic()
            if chunk:
                data += chunk
                last_progress = now
            elif now - last_progress > limit:
                got = f" (got {len(data)} of {size} B)" if data else ""
                raise LinkStalled(f"the link stalled: nothing for {limit:g} s while waiting for {what}{got}")
        return bytes(data)


# Payloads.


@dataclass(frozen=True)
class Hello:
    version: int
    counter: CounterKind
    input_bytes: tuple[int, ...]
    output_bytes: tuple[int, ...]
    num_steps: int
    workspace_bytes: int


@dataclass(frozen=True)
class Profile:
    counter: CounterKind
    total: int
    steps: tuple[int, ...]


_FAULT_NAMES = {2: "NMI", 3: "HardFault", 4: "MemManage fault", 5: "BusFault", 6: "UsageFault", 7: "SecureFault",
                11: "SVCall", 12: "DebugMonitor", 14: "PendSV"}
_CFSR_BITS = {0: "instruction access violation", 1: "data access violation", 3: "MPU fault on exception return",
              4: "MPU fault on exception entry (stack overflow?)", 8: "instruction bus error",
              9: "precise data bus error",
              10: "imprecise data bus error", 11: "bus fault on exception return",
              12: "bus fault on exception entry (stack overflow?)", 16: "undefined instruction",
              17: "invalid state (Thumb bit clear)", 18: "invalid exception return", 19: "no coprocessor (FPU off?)",
              20: "stack overflow (stack limit reached)",
              24: "unaligned access", 25: "divide by zero"}


@dataclass(frozen=True)
class Fault:
    step: int
    exception: int
    pc: int
    lr: int
    xpsr: int
    cfsr: int
    hfsr: int
    mmfar: int
    bfar: int
    exc_return: int

    def describe(self) -> str:
        name = _FAULT_NAMES.get(self.exception, f"exception {self.exception}")
        where = f"in step {self.step}" if self.step >= 0 else "outside the model's steps"
        causes = [text for bit, text in _CFSR_BITS.items() if self.cfsr >> bit & 1]
        if self.hfsr >> 30 & 1 and not causes:
            causes.append("escalated fault")
        cause = f": {', '.join(causes)}" if causes else ""
        address = ""
        if self.cfsr >> 15 & 1:
            address = f", fault address 0x{self.bfar:08x}"
        elif self.cfsr >> 7 & 1:
            address = f", fault address 0x{self.mmfar:08x}"
        return (f"{name} {where} at pc 0x{self.pc:08x} (lr 0x{self.lr:08x}, CFSR 0x{self.cfsr:08x}, "
                f"HFSR 0x{self.hfsr:08x}{address}){cause}")


def _check_length(frame: Frame, expected: int) -> None:
    if len(frame.payload) != expected:
        raise LinkError(f"malformed {FrameType(frame.type).name} frame: {len(frame.payload)} B of payload, "
                        f"expected {expected}")


def decode_hello(frame: Frame) -> Hello:
    if len(frame.payload) < 16:
        _check_length(frame, 16)
    version, counter, inputs, outputs, _, steps, workspace = struct.unpack_from("<BBHHHII", frame.payload)
    _check_length(frame, 16 + 4 * (inputs + outputs))
    sizes = struct.unpack_from(f"<{inputs + outputs}I", frame.payload, 16)
    if version != PROTOCOL_VERSION:
        raise LinkError(f"the firmware speaks protocol version {version}; this host speaks {PROTOCOL_VERSION}")
    return Hello(version, CounterKind(counter), sizes[:inputs], sizes[inputs:], steps, workspace)


def decode_profile(frame: Frame) -> Profile:
    if len(frame.payload) < 16:
        _check_length(frame, 16)
    counter, steps, total = struct.unpack_from("<B3xIQ", frame.payload)
    _check_length(frame, 16 + 8 * steps)
    return Profile(CounterKind(counter), total, struct.unpack_from(f"<{steps}Q", frame.payload, 16))


def decode_stack(frame: Frame) -> tuple[int, int]:
    """A STACK frame: (bytes of the program's stack used since reset, bytes it has)."""
    _check_length(frame, 8)
    used, reserved = struct.unpack("<2I", frame.payload)
    return used, reserved


def decode_fault(frame: Frame) -> Fault:
    _check_length(frame, 40)
    step, *words = struct.unpack("<i9I", frame.payload)
    return Fault(step, *words)


def fault_error(frame: Frame) -> FirmwareFault:
    """The error to raise for a FAULT frame, carrying the decoded fault."""
    fault = decode_fault(frame)
    error = FirmwareFault(f"the firmware faulted: {fault.describe()}")
    error.fault = fault
    return error


def decode_done(frame: Frame) -> int:
    _check_length(frame, 4)
    return struct.unpack("<i", frame.payload)[0]


def describe_error(frame: Frame) -> str:
    _check_length(frame, 8)
    code, detail = struct.unpack("<B3xI", frame.payload)
    return f"{FIRMWARE_ERROR_TEXT.get(code, f'error code {code}')} (detail {detail})"


@dataclass(frozen=True)
class SampleResult:
    sample: int
    status: int  # what fg_model_invoke returned
    outputs: tuple[bytes, ...]


def decode_sample(frame: Frame, output_bytes: tuple[int, ...]) -> SampleResult:
    """A SAMPLE frame of the dataset session: its outputs split by the sizes the firmware announced in its HELLO."""
    _check_length(frame, 8 + sum(output_bytes))
    sample, status = struct.unpack_from("<Ii", frame.payload)
    outputs, position = [], 8
    for size in output_bytes:
        outputs.append(frame.payload[position:position + size])
        position += size
    return SampleResult(sample, status, tuple(outputs))
