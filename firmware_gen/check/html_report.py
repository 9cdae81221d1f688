"""`firmware-gen analyze MODEL [--board B] --html FILE`: one self-contained HTML page of the analysis.

The page holds what `analyze` prints (the per-layer table; the totals; with a board the flash and RAM split read
from the ELF and each memory region's margin) and both plots as base64 PNG images: the memory timeline of the
plan, and with an emulated board the per-layer profile of one QEMU run. No external file, script, font or
network: inline CSS, `data:` images. It is written through a temporary sibling, then moved into place.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from pathlib import Path

from firmware_gen.check.analysis import Analysis, MemorySplit
from firmware_gen.check.analysis_report import FLASH_LABELS, RAM_LABELS, format_buffers
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.profile import PROFILE_DPI, ModelProfile, build_profile, estimate_note, profile_figure
from firmware_gen.driver.deploy import Deployment, quiet, run
from firmware_gen.figures import figure_png
from firmware_gen.output_paths import written_file
from firmware_gen.planner.plan import MemoryPlan
from firmware_gen.planner.plot import PLAN_DPI, plan_figure

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #eee; }
.bad { color: #b00; font-weight: bold; } .note { color: #555; font-style: italic; }
img { max-width: 100%; border: 1px solid #ddd; }
"""


def _cell(value: object, numeric: bool = False) -> str:
    if numeric and isinstance(value, int):
        return f'<td class="n">{value:,}</td>'
    return f"<td>{html.escape(str(value))}</td>"


def _table(header: list[str], rows: list[list[object]], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_cell(v, i in numeric) for i, v in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _image(png: bytes, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def _layers(analysis: Analysis, profile: ModelProfile | None) -> str:
    """The per-layer table; with a profile, each layer's count of the QEMU run too."""
    counts = {layer.index: layer.count for layer in profile.layers} if profile else {}
    estimated = profile is not None and profile.cycle_estimate is not None
    cycles = {layer.index: layer.estimated_cycles for layer in profile.layers} if estimated else {}
    rows = [[layer.index, layer.operator, layer.function or "(view)", layer.isa, "x".join(map(str, layer.output_shape)),
             layer.macs, layer.weight_bytes, layer.read_bytes, layer.written_bytes,
             *([counts[layer.index]] if profile else []), *([cycles[layer.index]] if estimated else []),
             format_buffers(layer)]
            for layer in analysis.layers]
    header = ["#", "operator", "kernel", "ISA", "output", "MACs", "weight B", "read B", "written B",
              *([profile.unit] if profile else []), *(["est. cycles (estimate)"] if estimated else []),
              "buffers (tensor@pool offset+bytes)"]
    return _table(header, rows, numeric={0, 5, 6, 7, 8, 9, 10})


def _memory(memory: MemorySplit, board: str) -> str:
    flash = [[FLASH_LABELS[k], v] for k, v in memory.flash.items()] + [["total", memory.flash_bytes]]
    ram = [[RAM_LABELS[k], v] for k, v in memory.ram.items()] + [["total", memory.ram_bytes]]
    regions = [[r["name"], r["used"], r["size"], r["free"], f"{100 * r['free'] / r['size']:.1f}%",
                "fits" if r["fits"] else "DOES NOT FIT"] for r in memory.regions if r["used"]]
    fit = _table(["region", "used B", "size B", "free B", "margin", "verdict"], regions, numeric={1, 2, 3})
    fit = fit.replace("<td>DOES NOT FIT</td>", '<td class="bad">DOES NOT FIT</td>')
    return (f"<h2>Flash and RAM on {html.escape(board)} (from the ELF)</h2>"
            f"<h3>Flash</h3>{_table(['part', 'bytes'], flash, numeric={1})}"
            f"<h3>RAM</h3>{_table(['part', 'bytes'], ram, numeric={1})}<h3>Board fit</h3>{fit}{_stack(memory.stack)}")


def _stack(stack: dict | None) -> str:
    """The worst-case stack and its deepest path, one row per frame."""
    if stack is None:
        return ""
    rows = [[call["function"], call["bytes"]] for call in stack["thread"]["path"]]
    problems = "".join(f'<p class="note">Not bounded: {html.escape(p)}</p>' for p in stack["problems"])
    return (f"<h3>Stack (worst case from the call graph)</h3><p>{stack['worst_case_bytes']:,} B of "
            f"{stack['reserved_bytes']:,} B reserved, margin {stack['margin_bytes']:,} B; exception handlers "
            f"{stack['handler']['bytes']:,} B on their own stack.</p>{problems}"
            f"{_table(['deepest path', 'frame B'], rows, numeric={1})}")


def _patch_stage(analysis: Analysis) -> str:
    """The patch stage: its operators, grid and buffers (the estimate labelled as one)."""
    stage = analysis.patch_stage
    if stage is None:
        return ""
    note = (f"Operators {stage['first_operator']}..{stage['last_operator']} run patch by patch, their output "
            f"t{stage['output_tensor']}, in {stage['layout']}; +{stage['extra_instructions_estimate']:.1%} "
            f"instructions (an estimate from the calls and what halos recompute). The "
            f"stage's intermediate tensors exist one patch at a time, in these buffers:")
    rows = [[f"t{b['tensor']}", b["name"], b["bytes"]] for b in stage["buffers"]]
    return (f'<h2>Patch stage</h2><p class="note">{html.escape(note)}</p>'
            + _table(["tensor", "name", "bytes"], rows, numeric={2}))


def render_html(analysis: Analysis, plan_png: bytes, profile: ModelProfile | None, profile_png: bytes | None,
                profile_note: str) -> str:
    """The page; profile_note says where the profile comes from, or why it is left out."""
    totals = analysis.totals
    summary = _table(["steps", "MACs", "weight bytes", "workspace pool bytes"],
                     [[totals["steps"], totals["macs"], totals["weight_bytes"], analysis.pool_bytes]],
                     numeric={0, 1, 2, 3})
    memory = (_memory(analysis.memory, analysis.board or "") if analysis.memory else
              '<h2>Flash and RAM</h2><p class="note">Not measured: give --board to build the firmware and split '
              "its ELF.</p>")
    profile_part = f'<p class="note">{html.escape(profile_note)}</p>'
    if profile is not None and profile_png is not None:
        profile_part += _image(profile_png, f"per-layer profile, {profile.count:,} {profile.unit}")
    title = html.escape(f"firmware-gen analyze: {analysis.model}" + (f" on {analysis.board}" if analysis.board
                                                                      else ""))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{title}</h1><h2>Totals</h2>{summary}{memory}"
            f"<h2>Memory timeline</h2>{_image(plan_png, 'memory timeline of the workspace pool')}"
            f"{_patch_stage(analysis)}"
            f"<h2>Per-layer profile</h2>{profile_part}<h2>Layers</h2>{_layers(analysis, profile)}</body></html>\n")


def _profile(deployment: Deployment | None, progress: Callable[[str], None],
             cycles: bool = False) -> tuple[ModelProfile | None, str]:
    if deployment is None:
        return None, "Left out: without --board nothing runs; give --board with a QEMU board to time every layer."
    board = deployment.firmware.board
    if not board.emulated:
        return None, (f"Left out: {board.name} is a real board; analyze runs only QEMU boards. Time it with "
                      f"firmware-gen run MODEL --board {board.name} --plot profile.png.")
    result = run(deployment, random_inputs(deployment.graph), progress=progress, cycles=cycles)
    profile = build_profile(deployment.graph, result, deployment.compiled.calls, board.core_hz)
    note = (f"One run under QEMU on {board.name} (random input, -icount: exact instruction counts): "
            f"{profile.count:,} {profile.unit} over {len(profile.layers)} layers.")
    return profile, note + (f" {estimate_note(profile.cycle_estimate)}" if profile.cycle_estimate else "")


def write_html_report(path: str | Path, analysis: Analysis, plan: MemoryPlan, deployment: Deployment | None = None,
                      progress: Callable[[str], None] | None = None, cycles: bool = False) -> Path:
    """Draw the plots (run the model on QEMU for the profile when the deployment's board is emulated), write the
    page through a temporary sibling of `path`. cycles: the run also estimates cycles (run --cycles)."""
    plan_png = figure_png(plan_figure(plan, title=Path(analysis.model).name), dpi=PLAN_DPI)
    profile, note = _profile(deployment, progress or quiet, cycles)
    profile_png = figure_png(profile_figure(profile, title=Path(analysis.model).name), dpi=PROFILE_DPI) \
        if profile else None
    page = render_html(analysis, plan_png, profile, profile_png, note)
    with written_file(path, "--html") as temporary:
        temporary.write_text(page, encoding="utf-8")
    return Path(path)
