"""The Zephyr a `--zephyr` build uses: the tree at --zephyr-base or ZEPHYR_BASE (a user's west workspace, or the
test tarball's zephyr-3.4.99/zephyr), its hal_cmsis module, the board Zephyr calls by the project board's name, and
the host tools its CMake needs. Every problem is one line naming the path, board, tool or Python package."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from firmware_gen.errors import ToolchainError, UserError
from firmware_gen.target.boards import Board

ZEPHYR_BASE_ENV = "ZEPHYR_BASE"
# Debian package of each host tool Zephyr's CMake build runs (arm-none-eabi-gcc is the `gnuarmemb` toolchain).
HOST_TOOLS = {"cmake": "cmake", "ninja": "ninja-build", "dtc": "device-tree-compiler",
              "arm-none-eabi-gcc": "gcc-arm-none-eabi"}
# The Python packages Zephyr's CMake imports (its scripts/requirements-base.txt lists more, for west and runners).
PYTHON_PACKAGES = {"elftools": "pyelftools", "yaml": "PyYAML", "pykwalify": "pykwalify", "packaging": "packaging"}


class ZephyrError(UserError):
    """No usable Zephyr tree, board or host tool for a --zephyr build."""


@dataclass(frozen=True)
class ZephyrTree:
    base: Path  # ZEPHYR_BASE: the zephyr/ folder
    version: str  # its VERSION file, as 3.4.99
    modules: tuple[Path, ...]  # ZEPHYR_MODULES given to CMake (hal_cmsis beside the tree, or the environment's)

    def identity(self) -> str:
        """What a cached build depends on of the tree."""
        return f"{self.base}|{self.version}|{';'.join(map(str, self.modules))}"


def _version(base: Path) -> str:
    fields = {}
    for line in (base / "VERSION").read_text().splitlines():
        key, _, value = line.partition("=")
        fields[key.strip()] = value.strip()
    return f"{fields.get('VERSION_MAJOR', '?')}.{fields.get('VERSION_MINOR', '?')}.{fields.get('PATCHLEVEL', '?')}"


def _modules(base: Path) -> tuple[Path, ...]:
    """hal_cmsis where west puts it (the workspace's modules/hal/cmsis), else ZEPHYR_MODULES from the environment,
    else none (Zephyr then asks west for the workspace's modules)."""
    beside = base.parent / "modules" / "hal" / "cmsis"
    if (beside / "zephyr" / "module.yml").is_file():
        return (beside.resolve(),)
    given = os.environ.get("ZEPHYR_MODULES", "")
    return tuple(Path(p).resolve() for p in given.replace(";", " ").split() if p)


def find_tree(zephyr_base: str | os.PathLike | None) -> ZephyrTree:
    """The tree at zephyr_base, else at $ZEPHYR_BASE; ZephyrError when there is none or it is not a Zephyr tree."""
    text = str(zephyr_base) if zephyr_base else os.environ.get(ZEPHYR_BASE_ENV, "")
    if not text:
        raise ZephyrError(f"--zephyr needs a Zephyr tree: set {ZEPHYR_BASE_ENV} (the zephyr/ folder of a west "
                          "workspace) or give --zephyr-base DIR")
    base = Path(text).expanduser().resolve()
    marker = base / "share" / "zephyr-package" / "cmake" / "ZephyrConfig.cmake"
    if not (base / "VERSION").is_file() or not marker.is_file():
        raise ZephyrError(f"{base} is not a Zephyr tree (no VERSION or share/zephyr-package/cmake/ZephyrConfig.cmake;"
                          f" {ZEPHYR_BASE_ENV} must be the zephyr/ folder of a west workspace)")
    return ZephyrTree(base, _version(base), _modules(base))


def check_board(tree: ZephyrTree, board: Board) -> None:
    """Zephyr must know a board of the project board's name (its boards/<arch>/<name>/<name>_defconfig)."""
    if not list(tree.base.glob(f"boards/*/{board.name}/{board.name}_defconfig")):
        raise ZephyrError(f"Zephyr {tree.version} at {tree.base} has no board '{board.name}' "
                          f"(no boards/*/{board.name}/{board.name}_defconfig)")


def check_host_tools() -> None:
    """cmake, ninja, dtc and the cross compiler on PATH, and the Python packages Zephyr's CMake imports."""
    for tool, package in HOST_TOOLS.items():
        if shutil.which(tool) is None:
            raise ToolchainError(f"{tool} not found, which Zephyr's build needs: apt-get install "
                                 f"--no-install-recommends {package}")
    for module, package in PYTHON_PACKAGES.items():
        if importlib.util.find_spec(module) is None:
            raise ToolchainError(f"the Python package {package} is missing, which Zephyr's CMake imports: "
                                 f"pip install 'firmware-gen[zephyr]' (into {sys.prefix})")


def build_environment(tree: ZephyrTree) -> dict[str, str]:
    """The environment of the CMake and Ninja runs: the user's toolchain choice if any, else Debian's
    arm-none-eabi-gcc as Zephyr's `gnuarmemb` toolchain; this Python first on PATH (its packages for the scripts)."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if not env.get("ZEPHYR_TOOLCHAIN_VARIANT"):
        gcc = Path(shutil.which("arm-none-eabi-gcc") or "/usr/bin/arm-none-eabi-gcc").resolve()
        env.update(ZEPHYR_TOOLCHAIN_VARIANT="gnuarmemb", GNUARMEMB_TOOLCHAIN_PATH=str(gcc.parent.parent))
        env.pop("ZEPHYR_SDK_INSTALL_DIR", None)
    env[ZEPHYR_BASE_ENV] = str(tree.base)  # zephyr_app's find_package(Zephyr HINTS $ENV{ZEPHYR_BASE})
    return env
