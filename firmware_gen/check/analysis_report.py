"""The text of `firmware-gen analyze` and of the memory split `build` prints."""

from __future__ import annotations

from firmware_gen.check.analysis import Analysis, LayerAnalysis, MemorySplit

FLASH_LABELS = {"code": "model code", "weights": "weights", "quantization": "quantization parameters",
                 "runtime": "runtime (kernels, port, libc)"}
RAM_LABELS = {"pool": "workspace pool", "io": "inputs/outputs outside the pool", "stack": "stack",
               "runtime_data": "runtime data (.data, .bss)"}


def format_buffers(layer: LayerAnalysis) -> str:
    parts = [f"t{b['tensor']}@caller" if b["pool"] is None else
             f"t{b['tensor']}@{'' if b['pool'] == 'default' else b['pool'] + ':'}{b['offset']}+{b['bytes']}"
             for b in layer.buffers]
    return " ".join(parts)


def format_layers(layers: list[LayerAnalysis]) -> list[str]:
    lines = [f"{'#':>3} {'operator':<18} {'kernel':<34} {'isa':<14} {'output':<16} {'MACs':>11} {'weights':>9} "
             f"{'read':>8} {'written':>8}  buffers (tensor@pool offset+bytes)"]
    for layer in layers:
        shape = "x".join(map(str, layer.output_shape))
        lines.append(f"{layer.index:>3} {layer.operator:<18} {layer.function or '(view)':<34} {layer.isa:<14.14} "
                     f"{shape:<16} {layer.macs:>11,} {layer.weight_bytes:>9,} {layer.read_bytes:>8,} "
                     f"{layer.written_bytes:>8,}  {format_buffers(layer)}")
    return lines


def format_memory(memory: MemorySplit) -> list[str]:
    lines = [f"flash {memory.flash_bytes:,} B: " + ", ".join(f"{FLASH_LABELS[k]} {v:,}" for k, v in
                                                             memory.flash.items()),
             f"RAM {memory.ram_bytes:,} B: " + ", ".join(f"{RAM_LABELS[k]} {v:,}" for k, v in memory.ram.items()
                                                       if v or k != "io")]
    for region in memory.regions:
        if region["used"]:
            verdict = "fits" if region["fits"] else "DOES NOT FIT"
            lines.append(f"  {region['name']:<10} {region['used']:>10,} / {region['size']:>10,} B used, "
                         f"{region['free']:,} B free ({100 * region['free'] / region['size']:.1f}%): {verdict}")
    return lines + format_stack(memory.stack)


def stack_path(path: dict) -> str:
    return " > ".join(f"{call['function']} ({call['bytes']})" for call in path["path"])


def format_stack(stack: dict | None) -> list[str]:
    if stack is None:
        return []
    lines = [f"stack: worst case {stack['worst_case_bytes']:,} B of {stack['reserved_bytes']:,} B reserved "
             f"(margin {stack['margin_bytes']:,} B); deepest path: {stack_path(stack['thread'])}",
             f"  exception handlers (their own stack): {stack['handler']['bytes']:,} B: {stack_path(stack['handler'])}"]
    if stack["model"]:
        lines.append(f"  from the model's run entry: {stack['model']['bytes']:,} B")
    return lines + [f"  not bounded: {problem}" for problem in stack["problems"]]


def format_patch_stage(stage: dict | None) -> list[str]:
    """The patch stage, its grid and its buffers (the stage's intermediates exist one patch at a time)."""
    if stage is None:
        return []
    lines = [f"patch stage: operators {stage['first_operator']}..{stage['last_operator']} run patch by patch, "
             f"output t{stage['output_tensor']}, in {stage['layout']}; +{stage['extra_instructions_estimate']:.1%} "
             f"instructions (an estimate: {stage['extra_macs']:,} MACs recomputed in halos)"]
    lines += [f"  patch buffer t{b['tensor']:<5} {b['bytes']:>8,} B  {b['name'][:60]}" for b in stage["buffers"]]
    return [*lines, ""]


def format_analysis(analysis: Analysis) -> str:
    lines = [f"{analysis.model}: {analysis.totals['steps']} steps, {analysis.totals['macs']:,} MACs, "
             f"weights {analysis.totals['weight_bytes']:,} B, workspace pool {analysis.pool_bytes:,} B", "",
             *format_layers(analysis.layers), "", *format_patch_stage(analysis.patch_stage)]
    if analysis.memory is None:
        lines.append("flash and RAM split: give --board to build the firmware and read its ELF")
    else:
        lines += [f"on {analysis.board}:", *format_memory(analysis.memory)]
    return "\n".join(lines)
