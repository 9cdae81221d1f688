"""matplotlib for the plots (`plan --plot`, `run --plot`): loaded on demand, since it is an optional dependency,
and a figure saved whole or not at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware_gen.errors import UserError
from firmware_gen.output_paths import written_file


def pyplot() -> Any:
    """matplotlib.pyplot, drawing off-screen; a one-line error when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError("--plot needs matplotlib: pip install 'firmware-gen[plot]'") from None
    return plt


def save_figure(figure: Any, path: str | Path, dpi: int) -> Path:
    """Write the figure to path through a temporary sibling (a full disk leaves no half-written PNG), then close it."""
    try:
        with written_file(path, "--plot") as temporary:
            figure.savefig(temporary, dpi=dpi)
    finally:
        pyplot().close(figure)
    return Path(path)
