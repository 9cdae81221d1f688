"""Dataset firmware (`validate --dataset --board`): a model's firmware with samples in its flash.

The samples go into the image because the host-to-firmware direction of an emulated UART carries 4-15 KiB/s (100
vww samples would take minutes); only the outputs travel back. The model is not compiled again: the dataset
firmware is the objects of the model's (cached) firmware, plus one assembled object holding the samples
(runtime_c/firmware/fg_dataset.h), linked with the board's script. How many samples one image holds comes from the
room the firmware leaves in the board's region for constants; more samples take several images.
"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

from firmware_gen.abi import DATASET_HEADER_BYTES, DATASET_MAGIC
from firmware_gen.errors import DoesNotFitError, ToolchainError
from firmware_gen.manifest import read_manifest
from firmware_gen.target.cross_build import CROSS_GCC, FirmwareBuild, find_tool, link_firmware

DATASET_SECTION = ".fg_dataset"  # placed with the constants, kept although only a weak reference reaches it
_ALIGNMENT = 16
_SLACK_BYTES = 64  # alignment padding the linker may add around the samples


def samples_per_image(firmware: FirmwareBuild, sample_bytes: int) -> int:
    """How many samples of sample_bytes fit beside the firmware in the board's region for constants."""
    region = firmware.board.region_for("rodata")
    used = next(r.used for r in firmware.regions if r.name == region.name)
    room = region.size - used - DATASET_HEADER_BYTES - _SLACK_BYTES
    if room < sample_bytes:
        raise DoesNotFitError(f"a dataset firmware needs room for one sample of {sample_bytes:,} B beside the model in "
                              f"{firmware.board.name}'s {region.name}; the firmware leaves {max(room, 0):,} B of "
                              f"its {region.size:,} B")
    return room // sample_bytes


def dataset_bytes(samples: list[bytes]) -> bytes:
    """The header of fg_dataset.h and the samples (each every input's bytes, in order), all of one size."""
    sample_bytes = len(samples[0]) if samples else 0
    if any(len(s) != sample_bytes for s in samples):
        raise ValueError("every sample of a dataset image must have the same size")
    return struct.pack("<4I", DATASET_MAGIC, len(samples), sample_bytes, 0) + b"".join(samples)


def _assemble(blob: Path, firmware: FirmwareBuild, obj: Path) -> Path:
    source = obj.with_suffix(".S")
    quoted = str(blob.resolve()).replace("\\", "\\\\").replace('"', '\\"')
    source.write_text(f'    .section {DATASET_SECTION}, "a"\n    .balign {_ALIGNMENT}\n    .global fg_dataset\n'
                      f'    .type fg_dataset, %object\nfg_dataset:\n    .incbin "{quoted}"\n'
                      f'    .size fg_dataset, . - fg_dataset\n')
    done = subprocess.run([find_tool(CROSS_GCC), *firmware.board.gcc_flags, "-c", str(source), "-o", str(obj)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolchainError(f"{CROSS_GCC} could not assemble the dataset image:\n{done.stderr[-2000:]}")
    return obj


def link_dataset_firmware(firmware: FirmwareBuild, samples: list[bytes], work: Path) -> FirmwareBuild:
    """work/dataset.elf: firmware's objects with these samples built in (DoesNotFitError if they do not fit)."""
    work.mkdir(parents=True, exist_ok=True)
    blob = work / "dataset.bin"
    blob.write_bytes(dataset_bytes(samples))
    objects = sorted((firmware.elf.parent / "obj").glob("*.o"))
    if not objects:
        raise ToolchainError(f"{firmware.elf.parent / 'obj'}: the firmware's objects are gone; build it again")
    manifest = read_manifest(firmware.model_dir)
    rodata = [*([manifest.weights_section] if manifest.weights_section else []), DATASET_SECTION]
    return link_firmware([*objects, _assemble(blob, firmware, work / "dataset.o")], firmware.board,
                         work / "dataset.elf", firmware.model_dir, firmware.interface, manifest.named_pools,
                         rodata_sections=rodata, prefix=manifest.prefix)
