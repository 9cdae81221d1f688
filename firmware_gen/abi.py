"""The names and codes the Python side shares with the C runtime and the linker scripts, spelled once.

Pool arrays and their sections (codegen writes them, the linker scripts place them, the build measures them),
the serial protocol's frame types and error codes (runtime_c/firmware/fg_protocol.h), the firmware's exit codes
and counter kinds (runtime_c/ports/fg_port.h), the packed-call error codes (runtime_c/include/fg/packed.h), and
the exit statuses of the command line. tests/test_abi.py pins every code here to its C header.
"""

from __future__ import annotations

import enum
import re

# --- The workspace pools -----------------------------------------------------------------------------------------



DEFAULT_PREFIX = "fg"  # generate --name: the prefix of every external symbol (and, upper-cased, every macro)
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_c_identifier(text: str) -> bool:
    return _C_IDENTIFIER.fullmatch(text) is not None


def pool_symbol(pool: str, prefix: str = DEFAULT_PREFIX) -> str:
    """The C array of a pool: `fg_pool` for the default pool, `fg_pool_<name>` for a named one (`fg` is the
    model's prefix, generate --name)."""
    return f"{prefix}_pool_{pool}" if pool else f"{prefix}_pool"


def pool_input_section(pool: str, prefix: str = DEFAULT_PREFIX) -> str:
    """The section the generated C puts a pool's array in (`__attribute__((section(...)))`)."""
    return f".bss.{pool_symbol(pool, prefix)}"


def pool_output_section(pool: str) -> str:
    """The output section of the linker script that holds a pool: `.fg_pool`, `.fg_pool_<name>`."""
    return f".{pool_symbol(pool)}"


def pool_bounds(pool: str) -> tuple[str, str]:
    """The linker symbols at the start and end of a pool's output section."""
    return f"__{pool_symbol(pool)}_start", f"__{pool_symbol(pool)}_end"


def constant_symbol(tensor_index: int, prefix: str = DEFAULT_PREFIX) -> str:
    """The C array of a constant tensor (weights, biases) in model_weights.c."""
    return f"{prefix}_const_{tensor_index}"


def model_symbol(role: str, prefix: str = DEFAULT_PREFIX) -> str:
    """A function of the generated model: `fg_model_run`, `fg_model_invoke`, ... (role "run", "invoke", ...)."""
    return f"{prefix}_model_{role}"


def model_macro(name: str, prefix: str = DEFAULT_PREFIX) -> str:
    """A macro of the generated model.h: `FG_MODEL_NUM_STEPS`, ... (name "NUM_STEPS", ...)."""
    return f"{prefix.upper()}_MODEL_{name}"


POOL_ALIGNMENT = 16  # bytes: every pool array, and a pool the application supplies (generate --pool-from-app)


class ModelStatus(enum.IntEnum):
    """FG_STATUS_<name> (runtime_c/include/fg/status.h): what a generated model's functions return besides 0 when
    the application supplies the pool (generate --pool-from-app)."""

    OK = 0
    NO_POOL = -16  # invoke or run before a pool was set
    POOL_TOO_SMALL = -17
    POOL_MISALIGNED = -18


# --- The calling conventions of the generated schedule --------------------------------------------------------
CALLING_CONVENTIONS = ("unpacked", "packed")  # direct C calls; TVM's C-runtime packed ABI


# --- The serial protocol (runtime_c/firmware/fg_protocol.h) -------------------------------------------------------
FRAME_MAGIC = b"FG"
PROTOCOL_VERSION = 1


class FrameType(enum.IntEnum):
    """FG_FRAME_<name>."""

    # firmware -> host
    HELLO = 0x01
    OUTPUT = 0x02
    PROFILE = 0x03
    DONE = 0x04
    ERROR = 0x05
    FAULT = 0x06
    STEP_DONE = 0x07
    TENSOR = 0x08
    SESSION_READY = 0x09
    ECHO = 0x0A  # the self-test (runtime_c/selftest/, link/selftest.py)
    TIMING = 0x0B
    MEMTEST = 0x0C
    FEATURE = 0x0D
    SAMPLE = 0x0E  # the dataset session (validate --dataset --board)
    STACK = 0x0F  # the program stack's high-water mark, after PROFILE
    # host -> firmware
    HELLO_REQUEST = 0x10
    INPUT = 0x11
    STEP_SESSION = 0x12  # the step session of a packed build (check/layer_validation.py)
    STEP_REQUEST = 0x13
    TENSOR_REQUEST = 0x14
    END_REQUEST = 0x15
    ECHO_REQUEST = 0x16
    TIMING_REQUEST = 0x17
    MEMTEST_REQUEST = 0x18
    FEATURE_REQUEST = 0x19
    DATASET_REQUEST = 0x1A
    SEQUENCE_REQUEST = 0x1B  # `run` of a sequence: several invocations in one session, state carried


SELFTEST_ECHO_MAX = 4096  # FG_SELFTEST_ECHO_MAX: the largest ECHO_REQUEST payload


class Feature(enum.IntEnum):
    """FG_FEATURE_<name>: a CPU feature the self-test runs a probe of, and what the probe computes."""

    FPU = 1
    DSP = 2
    MVE = 3


FEATURE_PROBE_RESULT = {Feature.FPU: 0x40900000, Feature.DSP: 0x00080046, Feature.MVE: 240}


class FirmwareError(enum.IntEnum):
    """FG_ERROR_<name>, the codes of an ERROR frame: what the firmware found wrong with the host's data."""

    BAD_CRC = 1
    BAD_LENGTH = 2
    BAD_INDEX = 3
    UNEXPECTED_FRAME = 4
    NOT_PACKED = 5
    NO_DATASET = 6


FIRMWARE_ERROR_TEXT = {
    FirmwareError.BAD_CRC: "a frame from the host failed its CRC check",
    FirmwareError.BAD_LENGTH: "a frame from the host had a wrong length",
    FirmwareError.BAD_INDEX: "a frame from the host named a tensor index that does not exist",
    FirmwareError.UNEXPECTED_FRAME: "the host sent an unexpected frame type",
    FirmwareError.NOT_PACKED: "the firmware was built without --interface packed: it cannot run single steps",
    FirmwareError.NO_DATASET: "the firmware holds no samples: it is not a dataset firmware",
}

# A dataset firmware's samples (runtime_c/firmware/fg_dataset.h): a header (magic, samples, bytes per sample, 0;
# u32 LE each), then per sample the bytes of every input in order.
DATASET_MAGIC = 0x53444746  # FG_DATASET_MAGIC, "FGDS"
DATASET_HEADER_BYTES = 16  # FG_DATASET_HEADER_BYTES


# --- The firmware's end of run (runtime_c/ports/fg_port.h) ---------------------------------------------------------
class FirmwareExit(enum.IntEnum):
    """FG_EXIT_<name>: how the firmware ends a run (the semihosting exit status under QEMU)."""

    OK = 0
    MODEL_ERROR = 10
    PROTOCOL_ERROR = 11
    FAULT = 12


class CounterKind(enum.IntEnum):
    """FG_COUNTER_<name>: what the step counts of a PROFILE frame count."""

    DWT = 1  # core clock cycles
    SYSTICK = 2  # SysTick ticks
    ZEPHYR_CYCLES = 3  # k_cycle_get_32() cycles (zephyr_app/)


# --- Packed calls (runtime_c/include/fg/packed.h) ------------------------------------------------------------------
class PackedError(enum.IntEnum):
    """FG_PACKED_ERR_<name>: why a shim refused its arguments instead of running its kernel."""

    NUM_ARGS = -1
    TYPE_CODE = -2
    DTYPE = -3
    SHAPE = -4
    NULL = -5
    NO_SUCH_STEP = -6
    NO_SUCH_ARG = -7


PACKED_ERROR_TEXT = {
    PackedError.NUM_ARGS: "wrong argument count",
    PackedError.TYPE_CODE: "wrong type code",
    PackedError.DTYPE: "wrong dtype",
    PackedError.SHAPE: "wrong shape",
    PackedError.NULL: "null argument",
    PackedError.NO_SUCH_STEP: "no such step",
    PackedError.NO_SUCH_ARG: "no such tensor argument",
}


def describe_packed_error(code: int) -> str:
    return PACKED_ERROR_TEXT.get(code, f"error code {code}")  # type: ignore[call-overload]


# --- The command line ----------------------------------------------------------------------------------------------
class ExitStatus(enum.IntEnum):
    OK = 0
    MISMATCH = 1  # the model ran, and differs from TensorFlow Lite Micro
    USER_ERROR = 2  # the user's mistake, explained in one line on stderr
    INTERRUPTED = 130  # 128 + SIGINT
