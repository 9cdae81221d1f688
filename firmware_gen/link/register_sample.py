"""The core registers at the first execution of chosen blocks, through QEMU's GDB stub (the remote serial protocol:
a breakpoint per block, the registers read at its first hit, the breakpoint removed, run on).

The cycle estimate uses them to know which memory region a load through a pointer reads (a weight in flash or an
activation in SRAM): the trace gives the executed blocks but no register values. One sample per block: a block's
pointers are assumed to stay in the region they start in (a kernel's weights stay in flash, its activations in RAM).
"""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping

from firmware_gen.errors import ToolchainError
from firmware_gen.link.exec_trace import OUTSIDE_SEGMENTS, Markers
from firmware_gen.link.qemu import free_tcp_port, kill_process_group

REGISTER_NAMES = ("r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc")


class GdbClient:
    def __init__(self, port: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise ToolchainError(f"QEMU's GDB stub on 127.0.0.1:{port} did not answer") from None
                time.sleep(0.05)
        # Each exchange is an ack ("+") then the next request, two small writes: with Nagle's algorithm on, the
        # request waits for the stub's delayed ACK of the first (~40 ms a request: vww's ~1,600 took 74 s).
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def _read_packet(self) -> str:
        while True:
            start = self.buffer.find(b"$")
            end = self.buffer.find(b"#", start + 1) if start >= 0 else -1
            if start >= 0 and end >= 0 and len(self.buffer) >= end + 3:
                body = self.buffer[start + 1:end]
                self.buffer = self.buffer[end + 3:]
                self.sock.sendall(b"+")
                return body.decode()
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ToolchainError("QEMU's GDB stub closed the connection")
            self.buffer += chunk

    def request(self, body: str) -> str:
        checksum = sum(body.encode()) % 256
        self.sock.sendall(f"${body}#{checksum:02x}".encode())
        return self._read_packet()

    def attach_all(self) -> None:
        """Attach to every CPU cluster QEMU's stub shows as a process (mps2-an521 runs the firmware on its second
        CPU, a second cluster): breakpoints stop any CPU, and registers() reads the one that stopped."""
        self.request("qSupported:multiprocess+")
        process = 2
        while self.request(f"vAttach;{process:x}").startswith("T"):
            process += 1

    def registers(self, stop: str) -> dict[str, int]:
        """The core registers of the CPU whose stop reply `stop` is (its thread:ID, when the reply names one)."""
        thread = next((field[len("thread:"):] for field in stop[3:].split(";") if field.startswith("thread:")), None)
        if thread is not None:
            self.request(f"Hg{thread}")
        return _registers(self.request("g"))

    def close(self) -> None:
        self.sock.close()


def _registers(reply: str) -> dict[str, int]:
    return {name: int.from_bytes(bytes.fromhex(reply[8 * n:8 * n + 8]), "little")
            for n, name in enumerate(REGISTER_NAMES)}


class RegisterSampler:
    """Samples registers at the first execution of each pc in `pcs`, in a thread, while QEMU (started with
    `-gdb tcp:127.0.0.1:PORT -S`) runs; the thread lets QEMU run to its end."""

    def __init__(self, port: int, pcs: Iterable[int], timeout: float = 30.0) -> None:
        self.port = port
        self.pcs = sorted(set(pcs))
        self.timeout = timeout
        self.samples: dict[int, dict[str, int]] = {}
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="qemu-register-sample", daemon=True)

    @property
    def qemu_flags(self) -> list[str]:
        return ["-gdb", f"tcp:127.0.0.1:{self.port}", "-S"]

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        try:
            client = GdbClient(self.port, self.timeout)
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            self.error = error
            return
        try:
            client.attach_all()
            self._sample(client)
            client.sock.sendall(b"$c#63")  # run on to the end; the reply, if any, is not awaited
        except (OSError, ToolchainError):
            pass  # QEMU ended: the samples so far stand
        finally:
            client.close()

    def _sample(self, client: GdbClient) -> None:
        waiting = set(self.pcs)
        for pc in self.pcs:
            client.request(f"Z0,{pc:x},2")
        while waiting:
            stop = client.request("c")
            if not stop.startswith(("T", "S")):
                return  # the program ended (W/X)
            registers = client.registers(stop)
            pc = registers["pc"]
            if pc in waiting:
                self.samples[pc] = registers
                waiting.discard(pc)
                client.request(f"z0,{pc:x},2")

    def result(self) -> dict[int, dict[str, int]]:
        self.thread.join(timeout=600)
        if self.error is not None:
            raise ToolchainError(f"sampling registers failed: {self.error}")
        return self.samples


class SegmentSampler(RegisterSampler):
    """Samples registers at the first execution of chosen blocks in each segment of the trace's window (a kernel's
    loop runs in many steps, each with its own weights): `wanted` gives, per segment number (exec_trace's: the
    steps in order, OUTSIDE_SEGMENTS between them), the pcs to sample there. Breakpoints at the window's and the
    segments' markers follow the segment; a segment's blocks are armed when it starts. `samples` is then
    {segment: {pc: registers}}."""

    def __init__(self, port: int, markers: Markers, wanted: Mapping[int, Iterable[int]],
                 timeout: float = 30.0) -> None:
        super().__init__(port, (), timeout)
        self.markers = markers
        self.wanted = {segment: set(pcs) for segment, pcs in wanted.items()}
        self.segment_samples: dict[int, dict[int, dict[str, int]]] = {}

    def _sample(self, client: GdbClient) -> None:
        marks = self.markers
        armed: set[int] = set()
        client.request(f"Z0,{marks.begin:x},2")
        state = {"segment": OUTSIDE_SEGMENTS, "next": 0, "inside": False}

        def arm(segment: int) -> None:
            done = self.segment_samples.setdefault(segment, {})
            wanted = self.wanted.get(segment, set()) - set(done)
            for pc in armed - wanted:
                client.request(f"z0,{pc:x},2")
            for pc in wanted - armed:
                client.request(f"Z0,{pc:x},2")
            armed.intersection_update(wanted)
            armed.update(wanted)

        while True:
            stop = client.request("c")
            if not stop.startswith(("T", "S")):
                return
            registers = client.registers(stop)
            pc = registers["pc"]
            if not state["inside"] and pc == marks.begin:
                state["inside"] = True
                client.request(f"z0,{marks.begin:x},2")
                for marker in (marks.end, marks.segment_begin, marks.segment_end):
                    client.request(f"Z0,{marker:x},2")
                arm(OUTSIDE_SEGMENTS)
            elif pc == marks.end:  # the window closed: no breakpoint may stop the rest of the run
                for marker in {pc, *armed, marks.segment_begin, marks.segment_end}:
                    client.request(f"z0,{marker:x},2")
                return
            elif pc in (marks.segment_begin, marks.segment_end):
                if pc == marks.segment_begin:
                    state["segment"], state["next"] = state["next"], state["next"] + 1
                else:
                    state["segment"] = OUTSIDE_SEGMENTS
                arm(state["segment"])
            if pc in armed:
                self.segment_samples.setdefault(state["segment"], {})[pc] = registers
                armed.discard(pc)
                client.request(f"z0,{pc:x},2")
            if pc in (marks.segment_begin, marks.segment_end):  # it stays: step over it, or it stops us again
                for packet in (f"z0,{pc:x},2", "s", f"Z0,{pc:x},2"):
                    client.request(packet)


def sample_run(command: list[str], pcs: Iterable[int], timeout: float) -> dict[int, dict[str, int]]:
    """Run a QEMU command line (it must run to its end by itself) with the registers sampled at pcs."""
    sampler = RegisterSampler(free_tcp_port(), pcs)
    process = subprocess.Popen([*command, *sampler.qemu_flags], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        sampler.start()
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"QEMU ran longer than {timeout:g} s while sampling registers") from None
    finally:
        kill_process_group(process)
    return sampler.result()
