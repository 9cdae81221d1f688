"""The results page of a sweep (`index.html`, one self-contained file): the Pareto plot of latency (instructions
per inference) against RAM per board, the front of each board drawn through the jobs no other job beats on both,
and the table of every row. Without matplotlib the page has the table and says why the plot is missing."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

from firmware_gen.errors import UserError
from firmware_gen.figures import figure_png, pyplot
from firmware_gen.output_paths import written_file


def pareto_front(points: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (RAM, latency) points no other point beats or equals on both, by RAM."""
    front: list[tuple[int, int]] = []
    for ram, latency in sorted(set(points)):
        if not front or latency < front[-1][1]:
            front.append((ram, latency))
    return front


def _measured(rows: list[dict]) -> dict[str, list[tuple[int, int]]]:
    by_board: dict[str, list[tuple[int, int]]] = {}
    for row in rows:
        if row["error"] is None and row["instructions"] is not None:
            by_board.setdefault(row["board"], []).append((row["ram_bytes"], row["instructions"]))
    return by_board


def _plot(rows: list[dict]) -> str:
    """The <img> of the Pareto plot, or a line saying why there is none."""
    by_board = _measured(rows)
    if not by_board:
        return "<p>No job measured a latency: no plot.</p>"
    try:
        plt = pyplot("the results page's plot")
    except UserError as error:
        return f"<p>{html.escape(str(error))}</p>"
    figure, axes = plt.subplots(1, len(by_board), figsize=(4.5 * len(by_board), 4), squeeze=False)
    for ax, (board, points) in zip(axes[0], sorted(by_board.items()), strict=True):
        ax.scatter([p[0] / 1024 for p in points], [p[1] for p in points], s=14, alpha=0.6, label="jobs")
        front = pareto_front(points)
        ax.step([p[0] / 1024 for p in front], [p[1] for p in front], where="post", color="tab:red", marker="o",
                markersize=4, label="Pareto front")
        latencies = [p[1] for p in points]
        if min(latencies) > 0 and max(latencies) > 10 * min(latencies):
            ax.set_yscale("log")
        ax.set(title=board, xlabel="RAM (KiB)", ylabel="instructions per inference")
        ax.legend(fontsize="small")
    figure.tight_layout()
    encoded = base64.b64encode(figure_png(figure, dpi=90)).decode()
    return f'<img alt="latency against RAM per board" src="data:image/png;base64,{encoded}">'


def _cell(value: object) -> str:
    if isinstance(value, dict):
        value = ", ".join(f"{k}={json.dumps(v)}" for k, v in value.items())
    elif isinstance(value, int) and not isinstance(value, bool):
        value = f"{value:,}"
    return f"<td>{html.escape('' if value is None else str(value))}</td>"


def write_page(path: Path, rows: list[dict], title: str) -> Path:
    columns = ["model", "board", "options", "pool_bytes", "flash_bytes", "ram_bytes", "instructions",
               "estimated_cycles", "bit_exact", "wall_s", "error"]
    failed = sum(row["error"] is not None for row in rows)
    body = "\n".join("<tr>" + "".join(_cell(row[name]) for name in columns) + "</tr>" for row in rows)
    page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif}} table{{border-collapse:collapse;font-size:13px}}
td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}} td:nth-child(-n+3){{text-align:left}}</style>
</head><body><h1>{html.escape(title)}</h1>
<p>{len(rows)} jobs, {failed} failed. instructions: exact counts under QEMU; estimated_cycles (with options.cycles):
an ESTIMATE from QEMU's execution trace and the core's timing model, not a measurement.</p>
{_plot(rows)}
<table><tr>{''.join(f'<th>{name}</th>' for name in columns)}</tr>
{body}
</table></body></html>
"""
    with written_file(path, "-o") as temporary:
        temporary.write_text(page)
    return path
