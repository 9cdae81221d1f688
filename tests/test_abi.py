"""The codes of firmware_gen.abi are the ones the C runtime defines: parsed from the headers, compared one by one."""

from __future__ import annotations

import enum
import re

import pytest

from firmware_gen import abi
from firmware_gen.resources import PROJECT_DIR, RUNTIME_DIR

_DEFINE = re.compile(r"#define\s+(FG_\w+)\s+(-?(?:0x[0-9A-Fa-f]+|\d+))\b")
_ENUMERATOR = re.compile(r"\b(FG_\w+)\s*=\s*(-?\d+)")
HEADERS = [RUNTIME_DIR / "firmware" / "fg_protocol.h", RUNTIME_DIR / "firmware" / "fg_dataset.h",
           RUNTIME_DIR / "ports" / "fg_port.h", RUNTIME_DIR / "include" / "fg" / "packed.h",
           RUNTIME_DIR / "include" / "fg" / "status.h", PROJECT_DIR / "zephyr_app" / "src" / "main.c"]


def c_constants() -> dict[str, int]:
    constants: dict[str, int] = {}
    for header in HEADERS:
        text = header.read_text()
        for pattern in (_DEFINE, _ENUMERATOR):
            constants.update({name: int(value, 0) for name, value in pattern.findall(text)})
    return constants


@pytest.mark.parametrize(("codes", "prefix"), [
    (abi.FrameType, "FG_FRAME_"),
    (abi.FirmwareError, "FG_ERROR_"),
    (abi.FirmwareExit, "FG_EXIT_"),
    (abi.CounterKind, "FG_COUNTER_"),
    (abi.PackedError, "FG_PACKED_ERR_"),
    (abi.ModelStatus, "FG_STATUS_"),
    (abi.Feature, "FG_FEATURE_"),
])
def test_python_codes_equal_the_c_headers(codes: type[enum.IntEnum], prefix: str) -> None:
    constants = c_constants()
    for member in codes:
        assert constants.get(prefix + member.name) == member.value, f"{codes.__name__}.{member.name}"
    in_c = {name[len(prefix):] for name in constants if name.startswith(prefix) and "MAGIC" not in name}
    assert in_c <= {member.name for member in codes}, f"C defines {prefix}* codes Python does not know"


def test_protocol_version_and_magic() -> None:
    constants = c_constants()
    assert constants["FG_PROTOCOL_VERSION"] == abi.PROTOCOL_VERSION
    assert bytes([constants["FG_FRAME_MAGIC0"], constants["FG_FRAME_MAGIC1"]]) == abi.FRAME_MAGIC


def test_selftest_echo_limit() -> None:
    assert c_constants()["FG_SELFTEST_ECHO_MAX"] == abi.SELFTEST_ECHO_MAX
    assert set(abi.FEATURE_PROBE_RESULT) == set(abi.Feature)


def test_dataset_image_layout() -> None:
    constants = c_constants()
    assert constants["FG_DATASET_MAGIC"] == abi.DATASET_MAGIC
    assert constants["FG_DATASET_HEADER_BYTES"] == abi.DATASET_HEADER_BYTES


def test_every_code_has_a_message() -> None:
    assert set(abi.FIRMWARE_ERROR_TEXT) == set(abi.FirmwareError)
    assert set(abi.PACKED_ERROR_TEXT) == set(abi.PackedError)


def test_pool_names() -> None:
    assert abi.pool_symbol("") == "fg_pool"
    assert abi.pool_input_section("dtcm") == ".bss.fg_pool_dtcm"
    assert abi.pool_output_section("") == ".fg_pool"
