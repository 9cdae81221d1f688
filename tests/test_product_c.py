"""Generated C for products (issue 11): headers that compile as C99 and C++11, every external symbol and macro
under the --name prefix, an application-supplied pool refused when too small or misaligned, weights in their
named section, and a C++ application linking two models through the generated CMakeLists.txt, bit-exact with
TFLM. The Arm side (Makefile fragment, QEMU) is tests/target/test_product_firmware.py."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection
from product_models import APP_DIR, EXPECTED_POOL_STATUS, MODELS, generate_models, parse_app_output, tflm_outputs

from conftest import shared_model

STRICT_C = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
STRICT_CXX = ["-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic"]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return generate_models(tmp_path_factory.mktemp("models"), shared_model)


def _run(command: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=300)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.parametrize("language", ["c99", "c++11"])
def test_both_headers_compile_together(models: dict[str, Path], tmp_path: Path, language: str) -> None:
    source = tmp_path / ("both.c" if language == "c99" else "both.cpp")
    source.write_text('#include "kws/model.h"\n#include "kws/model_weights.h"\n'
                      '#include "speech/model.h"\n#include "speech/model_weights.h"\n'
                      "int main(void) { return KWS_MODEL_NUM_STEPS + SPEECH_MODEL_NUM_STEPS > 0 ? 0 : 1; }\n")
    compiler, flags = ("gcc", STRICT_C) if language == "c99" else ("g++", STRICT_CXX)
    root = models["kws"].parent
    _run([compiler, *flags, f"-I{root}", f"-I{models['kws'] / 'runtime' / 'include'}", "-fsyntax-only",
          str(source)])


def _global_symbols(obj: Path) -> set[str]:
    with obj.open("rb") as handle:
        table = ELFFile(handle).get_section_by_name(".symtab")
        assert isinstance(table, SymbolTableSection)
        return {s.name for s in table.iter_symbols()
                if s["st_info"]["bind"] == "STB_GLOBAL" and s["st_shndx"] != "SHN_UNDEF"}


def test_every_external_symbol_and_macro_carries_the_name(models: dict[str, Path], tmp_path: Path) -> None:
    for name, directory in models.items():
        symbols: set[str] = set()
        for source in ("model.c", "model_weights.c"):
            obj = tmp_path / f"{name}_{source}.o"
            _run(["gcc", *STRICT_C, f"-I{directory / 'runtime' / 'include'}", "-c", str(directory / source),
                  "-o", str(obj)])
            symbols |= _global_symbols(obj)
        assert f"{name}_model_invoke" in symbols
        assert symbols and all(s.startswith(f"{name}_") for s in symbols), sorted(symbols)
        macros = re.findall(r"#define\s+(\w+)", (directory / "model.h").read_text()
                            + (directory / "model_weights.h").read_text())
        assert macros and all(m.startswith(f"{name.upper()}_") for m in macros), macros


def test_weights_in_their_section(models: dict[str, Path], tmp_path: Path) -> None:
    directory, section_name = models["speech"], MODELS["speech"][1].weights_section
    in_section = 0
    for source in ("model.c", "model_weights.c"):  # constants, and the tables the kernel variants repack them into
        obj = tmp_path / f"{source}.o"
        _run(["gcc", *STRICT_C, f"-I{directory / 'runtime' / 'include'}", "-c", str(directory / source),
              "-o", str(obj)])
        with obj.open("rb") as handle:
            elf = ELFFile(handle)
            section = elf.get_section_by_name(section_name)
            index = [i for i, s in enumerate(elf.iter_sections()) if s.name == section_name]
            in_section += section.data_size if section else 0
            constants = [s for s in elf.get_section_by_name(".symtab").iter_symbols()
                         if s.name.startswith("speech_const_")]
            assert all(s["st_shndx"] == index[0] for s in constants)
    assert in_section > 1960 * 8  # micro_speech's fully connected filter, at least


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("g++") is None, reason="cmake or g++ missing")
def test_cxx_application_of_two_models_through_cmake(models: dict[str, Path], tmp_path: Path) -> None:
    build = tmp_path / "build"
    _run(["cmake", "-S", str(APP_DIR), "-B", str(build), f"-DMODELS={models['kws'].parent}",
          "-DCMAKE_C_COMPILER=gcc", "-DCMAKE_CXX_COMPILER=g++"])
    _run(["cmake", "--build", str(build), "-j", "4"])
    pool, status, outputs = parse_app_output(_run([str(build / "app")]))
    assert pool == EXPECTED_POOL_STATUS
    assert status == [0, 0]
    assert outputs == tflm_outputs(shared_model)
