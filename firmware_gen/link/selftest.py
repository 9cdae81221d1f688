"""The host side of the self-test session (runtime_c/selftest/, fg_protocol.h): each check of a board, run over
the same session helper as a model run (QEMU, or the board's serial port).

A check that makes the firmware fault (a RAM region the chip does not have, a CPU feature it does not execute)
fails with the fault, and the checks after it run in a new session: QEMU is started again, a real board has reset
itself. If the link never comes up, the UART check fails and the others are not run.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from firmware_gen.abi import FEATURE_PROBE_RESULT, SELFTEST_ECHO_MAX, CounterKind, Feature, FirmwareExit, FrameType
from firmware_gen.errors import UserError
from firmware_gen.link.framing import Frame, LinkError, decode_done, describe_error, fault_error
from firmware_gen.link.session import TargetSession, handshake, open_session
from firmware_gen.target.boards import Board, MemoryRegion
from firmware_gen.target.cross_build import FirmwareBuild

# Every size from 1 to 17, then each power of two up to the largest frame, with its neighbours.
ECHO_SIZES = sorted({*range(1, 18), *(n + d for k in range(5, 13) for n in [1 << k] for d in (-1, 0, 1)),
                     SELFTEST_ECHO_MAX} - {SELFTEST_ECHO_MAX + 1})
CLOCK_TOLERANCE = 0.02
REAL_BOARD_WAIT_SECONDS = 1.0  # the timed wait: long, so that USB latency is small beside it
QEMU_WAIT_SECONDS = 0.02  # of virtual time: under -icount one instruction takes 1 ns


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: str  # "pass", "fail", "info" (measured, not judged: under QEMU), "skip" (not run)
    value: str  # what was measured, in words
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"check": self.name, "status": self.status, "value": self.value, **self.data}


Check = Callable[[TargetSession], list[CheckResult]]
# What to look at when a check fails on an error (a fault, a stall, no link), by the check's first word.
HINTS = {"uart": "check [uart] kind, base, baud and pins, the port and the cable",
         "counter": "check [cycle_counter] and [clock]", "memory": "check the region's origin and size in [[memory]]",
         "fpu": "the core does not execute it: check [cpu] fpu and gcc_flags",
         "dsp": "the core does not execute it: check [cpu] core and features",
         "mve": "the core does not execute it: check [cpu] core and features",
         "end": "the end of run is broken: check the UART driver's fg_uart_flush"}


def _failed(name: str, error: Exception) -> CheckResult:
    return CheckResult(name, "fail", f"{error}; {HINTS[name.split()[0]]}")


def _expect(session: TargetSession, expected: FrameType, wait: float | None = None) -> Frame:
    frame = session.link.receive(wait=wait)
    while frame.type == FrameType.HELLO:  # the answer to a repeated HELLO_REQUEST of a slow handshake
        frame = session.link.receive(wait=wait)
    if frame.type == FrameType.FAULT:
        raise fault_error(frame)
    if frame.type == FrameType.ERROR:
        raise LinkError(f"the firmware rejected the host's frame: {describe_error(frame)} (host -> board: bytes "
                        "were lost or changed on the way in)")
    if frame.type != expected:
        raise LinkError(f"expected a {expected.name} frame, got type 0x{frame.type:02x}")
    return frame


def echo_payload(size: int) -> bytes:
    """151 is odd: the first 256 bytes of a payload hold every byte value once."""
    return bytes((i * 151 + size) & 0xFF for i in range(size))


def check_uart(session: TargetSession, board: Board, baud: int) -> list[CheckResult]:
    started = time.monotonic()
    for size in ECHO_SIZES:
        sent = echo_payload(size)
        session.link.send(FrameType.ECHO_REQUEST, sent)
        got = _expect(session, FrameType.ECHO).payload
        if got != sent:
            at = next((i for i, (a, b) in enumerate(zip(sent, got, strict=False)) if a != b), min(len(sent), len(got)))
            return [CheckResult("uart", "fail", f"the echo of a {size} B frame came back as {len(got)} B, first "
                                f"difference at byte {at}", {"frame_bytes": size})]
    moved = 2 * sum(n + 11 for n in ECHO_SIZES)
    rate = moved / (time.monotonic() - started)
    pace = "QEMU does not pace its UART" if board.emulated else f"at {baud} baud"
    return [CheckResult("uart", "pass", f"{len(ECHO_SIZES)} frames of 1 to {SELFTEST_ECHO_MAX} B, every byte value, "
                        f"echoed intact both ways ({pace}; {rate:,.0f} B/s both ways together)",
                        {"frames": len(ECHO_SIZES), "largest_bytes": SELFTEST_ECHO_MAX, "baud": baud,
                         "bytes_per_second": round(rate)})]


def check_counter_and_clock(session: TargetSession, board: Board) -> list[CheckResult]:
    kind = session.hello.counter
    hz = board.core_hz if kind == CounterKind.DWT else board.systick_hz
    seconds = QEMU_WAIT_SECONDS if board.emulated else REAL_BOARD_WAIT_SECONDS
    session.link.send(FrameType.TIMING_REQUEST, struct.pack("<I", round(hz * seconds)))
    _expect(session, FrameType.TIMING)
    started = time.monotonic()
    _, _, stuck, counts = struct.unpack("<BBBxQ", _expect(session, FrameType.TIMING, wait=60 + 10 * seconds).payload)
    elapsed = time.monotonic() - started
    name = kind.name.lower()
    if stuck:
        return [CheckResult("counter", "fail", f"{name} stopped counting after {counts:,} counts"),
                CheckResult("clock", "skip", "no running counter to time")]
    wanted_dwt = board.cycle_counter == "dwt" and not board.emulated
    counter_ok = kind == CounterKind.DWT or not wanted_dwt
    note = " (QEMU models no DWT cycle counter)" if board.emulated and board.cycle_counter == "dwt" else ""
    counter = CheckResult("counter", "pass" if counter_ok else "fail",
                          f"{name} counts{note}" if counter_ok else f"{name}: the DWT cycle counter does not count",
                          {"counter": name})
    measured = counts / elapsed
    off = measured / hz - 1
    verdict = "info" if board.emulated else ("pass" if abs(off) <= CLOCK_TOLERANCE else "fail")
    what = "core clock" if kind == CounterKind.DWT else "SysTick clock"
    value = (f"{what} {measured / 1e6:.3f} MHz timed from the host over {counts:,} counts; the board file says "
             f"{hz / 1e6:.3f} MHz ({100 * off:+.1f}%)")
    if board.emulated:
        value += "; under QEMU this is the emulator's speed, not judged"
    return [counter, CheckResult("clock", verdict, value, {"measured_hz": round(measured), "expected_hz": hz,
                                                           "seconds": round(elapsed, 4)})]


def check_memory(session: TargetSession, region: MemoryRegion) -> list[CheckResult]:
    session.link.send(FrameType.MEMTEST_REQUEST, struct.pack("<II", region.origin, region.size))
    wait = 60 + 20 * region.size / (1 << 20)
    _, _, tested, status, address, read, expected = struct.unpack(
        "<7I", _expect(session, FrameType.MEMTEST, wait=wait).payload)
    name = f"memory {region.name}"
    where = f"0x{region.origin:08X}..0x{region.end - 1:08X}"
    if status:
        return [CheckResult(name, "fail", f"{where}: the word at 0x{address:08X} read back 0x{read:08X}, written "
                            f"0x{expected:08X}: no RAM there, or it is faulty", {"address": address})]
    rest = "" if tested == region.size else " (the rest holds the self-test)"
    return [CheckResult(name, "pass", f"{where}: {tested:,} of {region.size:,} B written and read back{rest}",
                        {"tested_bytes": tested, "region_bytes": region.size})]


def check_feature(session: TargetSession, feature: Feature) -> list[CheckResult]:
    session.link.send(FrameType.FEATURE_REQUEST, bytes([feature]))
    _, result = struct.unpack("<B3xI", _expect(session, FrameType.FEATURE).payload)
    wanted = FEATURE_PROBE_RESULT[feature]
    ok = result == wanted
    return [CheckResult(feature.name.lower(), "pass" if ok else "fail",
                        f"its probe computed 0x{result:X}" + (", as it should" if ok else f", not 0x{wanted:X}"),
                        {"result": result})]


def check_end(session: TargetSession, board: Board) -> list[CheckResult]:
    session.link.send(FrameType.END_REQUEST, b"")
    status = decode_done(_expect(session, FrameType.DONE))
    if status != 0:
        return [CheckResult("end", "fail", f"DONE carried status {status}")]
    if session.qemu is not None:
        code = session.expect_exit(FirmwareExit.OK, "the self-test sent DONE")
        return [CheckResult("end", "pass", f"DONE arrived intact, then the firmware exited with status {code}")]
    handshake(session.link)  # the board resets after DONE and waits for the host again
    return [CheckResult("end", "pass", "DONE arrived intact (its CRC whole: the UART drained before the reset), "
                        "then the board reset and answered HELLO_REQUEST again")]


def plan_checks(board: Board, features: Sequence[Feature], baud: int) -> list[tuple[str, Check]]:
    """(name, check) in the order they run: the link first, the end of run last."""
    ram = [r for r in board.regions if not set(r.holds) & {"code", "rodata"}]
    checks: list[tuple[str, Check]] = [("uart", lambda s: check_uart(s, board, baud)),
                                       ("counter", lambda s: check_counter_and_clock(s, board))]
    checks += [(f"memory {r.name}", lambda s, r=r: check_memory(s, r)) for r in ram]
    checks += [(f.name.lower(), lambda s, f=f: check_feature(s, f)) for f in features]
    return checks + [("end", lambda s: check_end(s, board))]


def run_selftest(firmware: FirmwareBuild, features: Sequence[Feature], *, serial_url: str | None = None,
                 baudrate: int | None = None, stall_timeout: float = 10.0) -> list[CheckResult]:
    """Every check of plan_checks on the self-test firmware, under QEMU or on the board at serial_url."""
    baud = baudrate or firmware.board.uart_baud
    pending = plan_checks(firmware.board, features, baud)
    results: list[CheckResult] = []
    while pending:
        try:
            with open_session(firmware, serial_url=serial_url, baudrate=baud, timeout=300,
                              stall_timeout=stall_timeout) as session:
                while pending:
                    name, check = pending.pop(0)
                    try:
                        results += check(session)
                    except UserError as error:  # a fault, a stall, a corrupted frame: this check failed
                        results.append(_failed(name, error))
                        break
        except UserError as error:  # the session did not come up: nothing else can run
            results.append(_failed(pending.pop(0)[0], LinkError(f"no link with the self-test firmware: {error}")))
            results += [CheckResult(name, "skip", "not run: no link") for name, _ in pending]
            break
    return results
