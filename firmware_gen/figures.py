"""matplotlib for the plots (`plan --plot`, `run --plot`, `analyze --html`): loaded on demand, since it is an
optional dependency, and a figure saved whole or not at all, or rendered to PNG bytes for a page."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from firmware_gen.errors import UserError
from firmware_gen.output_paths import written_file


def pyplot(option: str = "--plot") -> Any:
    """matplotlib.pyplot, drawing off-screen; a one-line error naming `option` when matplotlib is not installed
    (call it before the work to refuse early)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError(f"{option} needs matplotlib: pip install 'firmware-gen[plot]'") from None
    return plt


def save_figure(figure: Any, path: str | Path, dpi: int) -> Path:
    """Write the figure to path through a temporary sibling (a full disk leaves no half-written PNG), then close it."""
    try:
        with written_file(path, "--plot") as temporary:
            figure.savefig(temporary, dpi=dpi)
    finally:
        pyplot().close(figure)
    return Path(path)


def figure_png(figure: Any, dpi: int) -> bytes:
    """The figure as PNG bytes (for a page that embeds it), then closed."""
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=dpi)
    finally:
        pyplot().close(figure)
    return buffer.getvalue()
