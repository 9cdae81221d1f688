"""The host side of zephyr_app/: decode the protocol frames it prints on Zephyr's console.

zephyr_app prints each frame of the profiling protocol (fg_protocol.h) hex-encoded on a line starting with "@FG ",
between ordinary console lines (boot banner, its own messages). The frames are checked (magic, length, CRC-32) by
the same code as on a serial link. Its input is a fixed pattern, input_pattern() here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from firmware_gen.abi import FrameType
from firmware_gen.errors import UserError
from firmware_gen.link.framing import Frame, Hello, Link, LinkError, Profile, decode_done, decode_hello, decode_profile
from firmware_gen.manifest import ModelInterface

FRAME_PREFIX = "@FG "
_CYCLES_PER_SECOND = re.compile(r"k_cycle_get_32 at (\d+) Hz")


class ConsoleError(UserError):
    """The console log holds no complete, intact run of zephyr_app."""


@dataclass(frozen=True)
class ZephyrRun:
    hello: Hello
    outputs: list[bytes]
    profile: Profile
    status: int
    cycles_per_second: int | None


class _Bytes:
    """Just enough of a serial port for Link.receive: the bytes of one decoded line."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int) -> bytes:
        chunk, self.data = self.data[:size], self.data[size:]
        return chunk


def _frame(line: str) -> Frame:
    try:
        data = bytes.fromhex(line[len(FRAME_PREFIX):].strip())
    except ValueError:
        raise ConsoleError(f"a frame line that is not hex: {line[:60]!r}") from None
    try:
        return Link(_Bytes(data), stall_timeout=0.0).receive(wait=0.0)  # type: ignore[arg-type]
    except LinkError as error:
        raise ConsoleError(f"a damaged frame line ({error}): {line[:60]!r}") from None


def parse_console(text: str) -> ZephyrRun:
    """The run printed in a console log (the last one, if the board ran several times)."""
    frames = [_frame(line) for line in text.splitlines() if line.startswith(FRAME_PREFIX)]
    starts = [i for i, frame in enumerate(frames) if frame.type == FrameType.HELLO]
    if not starts:
        raise ConsoleError("no zephyr_app run in the console output (no HELLO frame line starting with '@FG ')")
    frames = frames[starts[-1]:]
    hello = decode_hello(frames[0])
    outputs = {f.payload[0]: f.payload[1:] for f in frames if f.type == FrameType.OUTPUT and f.payload}
    profiles = [decode_profile(f) for f in frames if f.type == FrameType.PROFILE]
    done = [decode_done(f) for f in frames if f.type == FrameType.DONE]
    if not profiles or not done or sorted(outputs) != list(range(len(hello.output_bytes))):
        raise ConsoleError("the console output ends before the run did (missing OUTPUT, PROFILE or DONE frames)")
    rates = _CYCLES_PER_SECOND.findall(text)
    return ZephyrRun(hello, [outputs[i] for i in sorted(outputs)], profiles[-1], done[-1],
                     int(rates[-1]) if rates else None)


def input_pattern(interface: ModelInterface) -> list[np.ndarray]:
    """The inputs zephyr_app runs on: byte j of input i is (37 j + 101 i + 11) mod 256."""
    arrays = []
    for index, spec in enumerate(interface.inputs):
        raw = ((37 * np.arange(spec.nbytes) + 101 * index + 11) % 256).astype(np.uint8).tobytes()
        arrays.append(spec.array_from(raw))
    return arrays


def main(argv: list[str] | None = None) -> int:
    """python -m firmware_gen.link.zephyr_console CONSOLE.log: the run's cycles per step and its outputs."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m firmware_gen.link.zephyr_console", description=main.__doc__)
    parser.add_argument("log", help="the console output of zephyr_app (e.g. west build -t run | tee console.log)")
    args = parser.parse_args(argv)
    try:
        with open(args.log, errors="replace") as file:
            run = parse_console(file.read())
    except (OSError, UserError) as error:
        print(f"firmware-gen: error: {error}", file=sys.stderr)
        return 2
    rate = f" at {run.cycles_per_second:,} Hz" if run.cycles_per_second else ""
    print(f"status {run.status}, {run.profile.total:,} cycles{rate}, {len(run.profile.steps)} steps")
    for step, cycles in enumerate(run.profile.steps):
        print(f"  step {step:3d}: {cycles:>12,} cycles")
    for index, raw in enumerate(run.outputs):
        print(f"output {index}: {raw.hex()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
