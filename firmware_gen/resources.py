"""Where the files firmware-gen ships beside its Python code live: the C runtime and the board files."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_DIR = PACKAGE_DIR.parent
RUNTIME_DIR = PROJECT_DIR / "runtime_c"
BOARDS_DIR = PROJECT_DIR / "boards"
ZEPHYR_APP_DIR = PROJECT_DIR / "zephyr_app"
