"""C code generation: a legalized schedule -> model.h, model.c, model_weights.{c,h} and a copy of the runtime.

The output directory is self-contained: it builds with any C99 compiler from its own files.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import jinja2
import numpy as np

from firmware_gen import __version__
from firmware_gen.abi import POOL_ALIGNMENT, constant_symbol, model_macro, model_symbol, pool_input_section, pool_symbol
from firmware_gen.backend.c_literals import c_array_body, c_comment_safe, c_float, c_int, pointer_type, short_name
from firmware_gen.backend.integration import integration_files
from firmware_gen.backend.legalize import Step, user_buffers
from firmware_gen.backend.options import GenerationOptions
from firmware_gen.backend.packed import pack, packed_tables
from firmware_gen.backend.patch_emit import stage_code
from firmware_gen.backend.row_emit import row_stage_code
from firmware_gen.backend.runtime_closure import needed_kernels
from firmware_gen.frontend.ir import Graph, Tensor
from firmware_gen.manifest import MANIFEST_FILE, ModelInterface, ModelManifest, PoolArray, TensorSpec, write_manifest
from firmware_gen.ops.base import TableRef, run_time_frames
from firmware_gen.output_paths import check_output_dir, copy_tree, move, output_error, scratch_dir
from firmware_gen.planner import MemoryPlan
from firmware_gen.resources import RUNTIME_DIR

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
    extensions=["jinja2.ext.loopcontrols"],
)
GENERATED_FILES = ("model.h", "model.c", "model_weights.h", "model_weights.c")
RUNTIME_PARTS = ("include", "kernels")  # the folders of runtime_c every model needs; packed models add "packed"


@dataclass
class GeneratedModel:
    files: dict[str, str]  # file name -> text
    runtime_parts: tuple[str, ...]  # the folders of runtime_c copied beside them
    manifest: ModelManifest


@dataclass
class _GraphIO:
    tensor: Tensor
    offset: int | None  # within its pool; None in the caller's buffer
    storage: str  # C address, e.g. "fg_pool + 128", or "inputs[0]" in the caller's buffer
    scale: str
    zero_point: int


@dataclass
class _Constant:
    tensor: Tensor
    name: str
    comment_name: str
    body: str


def _param_value(value: object, step: Step) -> str:
    if isinstance(value, TableRef):
        return step.tables[value.suffix]
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return c_int(int(value))
    if isinstance(value, (float, np.floating)):
        return c_float(float(value))
    if isinstance(value, tuple):
        return "{ " + ", ".join(_param_value(v, step) for v in value) + " }"
    if isinstance(value, str):
        return value
    raise TypeError(f"cannot emit a params value of type {type(value).__name__}")


def _graph_io(graph: Graph, plan: MemoryPlan, indices: tuple[int, ...], kind: str, prefix: str) -> list[_GraphIO]:
    result = []
    for position, index in enumerate(indices):
        tensor = graph.tensors[index]
        q = tensor.quantization
        if plan.is_outside(index):
            offset, storage = None, f"{kind}[{position}]"
        else:
            buffer = plan.buffer_of(index)
            offset, storage = buffer.offset, f"{pool_symbol(buffer.pool, prefix)} + {buffer.offset}"
        result.append(_GraphIO(tensor, offset, storage, c_float(q.scale) if q else "1.0f", q.zero_point if q else 0))
    return result


def _constants(graph: Graph, steps: list[Step], prefix: str) -> list[_Constant]:
    used = sorted({ref.index for step in steps for ref in step.inputs
                   if ref.index >= 0 and graph.tensors[ref.index].is_constant})
    return [_Constant(graph.tensors[i], constant_symbol(i, prefix), c_comment_safe(graph.tensors[i].name),
                      c_array_body(graph.tensors[i].data)) for i in used]


def _state_buffers(graph: Graph, plan: MemoryPlan, prefix: str) -> list[dict]:
    """The state buffers as reset_state fills them: TFLM's start value, the zero point of int8 state, else 0."""
    rows = []
    for tensor in graph.state_tensors:
        buffer = plan.buffer_of(tensor.index)
        fill = tensor.quantization.zero_point & 0xFF if tensor.dtype.itemsize == 1 and tensor.quantization else 0
        rows.append({"storage": f"{pool_symbol(buffer.pool, prefix)} + {buffer.offset}", "bytes": tensor.nbytes,
                     "fill": fill, "label": c_comment_safe(f"t{tensor.index} '{short_name(tensor.name)}'")})
    return rows


def _pool_map(graph: Graph, plan: MemoryPlan, prefix: str) -> list[dict]:
    rows = []
    for buffer in sorted(plan.buffers, key=lambda b: (b.pool, b.offset, b.first_op)):
        names = ", ".join(f"t{i} '{short_name(graph.tensors[i].name)}'" for i in buffer.tensors)
        if buffer.pool:
            names = f"[{pool_symbol(buffer.pool, prefix)}] {names}"
        rows.append({"offset": buffer.offset, "size": buffer.size, "first_op": buffer.first_op,
                     "last_op": buffer.last_op, "label": c_comment_safe(names)})
    return rows


def pool_arrays(plan: MemoryPlan, prefix: str = GenerationOptions().name) -> list[PoolArray]:
    """One C array per pool that holds something (the single default pool always)."""
    if len(plan.pools) == 1 and not plan.pools[0].name:
        if plan.outside and not plan.buffers:
            return []  # everything lives in the caller's buffers: an unused array would not compile with -Werror
        pools = plan.pools
    else:
        pools = [pool for pool in plan.pools if plan.pool_sizes[pool.name] > 0]
    return [PoolArray(pool.name, pool_symbol(pool.name, prefix), pool_input_section(pool.name, prefix),
                      plan.pool_sizes[pool.name])
            for pool in pools]


def _pool_declarations(plan: MemoryPlan, arrays: list[PoolArray], prefix: str) -> list[dict]:
    """The arrays as model.c declares them: the single default pool is sized by the header macro."""
    single = len(plan.pools) == 1 and not plan.pools[0].name
    size = model_macro("WORKSPACE_BYTES", prefix)
    return [{"symbol": a.symbol, "section": a.section, "size": size if single else a.nbytes}
            for a in arrays]


def _headers_declaring(functions: set[str]) -> list[str]:
    """The runtime headers that declare the given kernel functions (each includes what its params need)."""
    headers = []
    for header in sorted((RUNTIME_DIR / "include" / "fg").glob("*.h")):
        declared = set(re.findall(r"\b(fg_\w+)\s*\(", header.read_text()))
        if declared & functions:
            headers.append(header.name)
    return headers


def _tensor_spec(tensor: Tensor) -> TensorSpec:
    return TensorSpec(tensor.nbytes, tuple(tensor.shape), str(tensor.dtype))


_MACROS = ("NAME", "NUM_STEPS", "WORKSPACE_BYTES", "NUM_INPUTS", "NUM_OUTPUTS", "IO_IN_POOL", "IO_BYTES")


def _manifest(graph: Graph, plan: MemoryPlan, steps: list[Step], interface: str, files: dict[str, str],
              runtime_parts: tuple[str, ...], options: GenerationOptions) -> ModelManifest:
    code = [text for name, text in files.items() if name.endswith((".c", ".h"))]
    runtime = [f"runtime/kernels/{name}" for name in needed_kernels(code)]
    runtime += [f"runtime/{part}/{path.name}" for part in runtime_parts if part not in ("include", "kernels")
                for path in sorted((RUNTIME_DIR / part).glob("*.c"))]
    io_in_pool = not plan.outside
    roles = ["run", "input_bytes", "output_bytes"]
    roles += ["invoke", "input", "output"] if io_in_pool else []
    roles += ["registry", "call_step", "find_step"] if interface == "packed" else []
    roles += ["set_pool"] if options.pool_from_app else []
    roles += ["reset_state"] if graph.state_tensors else []
    macros = [*_MACROS, *(["INTERFACE_PACKED"] if interface == "packed" else []),
              *(["POOL_ALIGN"] if options.pool_from_app else [])]
    return ModelManifest(
        interface=ModelInterface(tuple(_tensor_spec(graph.tensors[i]) for i in graph.inputs),
                                 tuple(_tensor_spec(graph.tensors[i]) for i in graph.outputs),
                                 len(graph.operators)),
        calling_convention=interface,
        io_in_pool=io_in_pool,
        pools=tuple(pool_arrays(plan, options.name)),
        sources=tuple(sorted(name for name in files if name.endswith(".c"))) + tuple(runtime),
        include_dirs=(".", "runtime/include"),
        symbols={role: model_symbol(role, options.name) for role in roles},
        prefix=options.name,
        macros={macro: model_macro(macro, options.name) for macro in macros},
        pool_from_app=options.pool_from_app,
        weights_section=options.weights_section,
        run_time_frames=run_time_frames([s.call for s in steps if s.call]),
    )


def render(graph: Graph, plan: MemoryPlan, steps: list[Step], source: str = "",
           interface: str = "unpacked", options: GenerationOptions = GenerationOptions(),
           stage_plan=None) -> GeneratedModel:
    """The generated files and their manifest; `options` name the model's symbols, own its pool, place its
    weights (the steps must have been legalized with the same name); `stage_plan` (driver.patch_choice.StagePlan)
    the prefix that runs patch by patch, if any."""
    options.check(interface, named_pools=any(pool.name for pool in plan.pools))
    step_params = {s.index: [(f, _param_value(v, s)) for f, v in s.call.params.items()] for s in steps if s.call}
    emit = row_stage_code if stage_plan is not None and stage_plan.stage.mode == "rows" else stage_code
    stage = None if stage_plan is None else emit(graph, plan, steps, stage_plan, step_params, options.name,
                                                 user_buffers(graph, plan))
    packed_steps, packed_shims = pack(graph, steps) if interface == "packed" else ([], [])
    banner = f"Generated by firmware-gen {__version__}{' from ' + source if source else ''}. Do not edit."
    headers = _headers_declaring({step.call.function for step in steps if step.call} |
                                 ({"fg_region_gather"} if stage else set()))
    prefix = options.name
    context = {
        "banner": banner,
        "interface": interface,
        "sym": lambda role: model_symbol(role, prefix),
        "mac": lambda name: model_macro(name, prefix),
        "pool_from_app": options.pool_from_app,
        "app_pool_symbol": pool_symbol("", prefix),
        "pool_align": POOL_ALIGNMENT,
        "weights_section": options.weights_section,
        "generation": options,  # where each constant array goes (section_attribute, ram_weight)
        "packed_steps": packed_steps,
        "packed_shims": packed_shims,
        "packed_tables": packed_tables(packed_steps),
        "graph": graph,
        "plan": plan,
        "steps": steps,
        "io_in_pool": not plan.outside,
        "io_bytes": sum(-(-graph.tensors[i].nbytes // 16) * 16 for i in (*graph.inputs, *graph.outputs)),
        "inputs": _graph_io(graph, plan, graph.inputs, "inputs", prefix),
        "outputs": _graph_io(graph, plan, graph.outputs, "outputs", prefix),
        "constants": _constants(graph, steps, prefix),
        "headers": headers,
        "pool_map": _pool_map(stage_plan.buffers.graph if stage_plan else graph, plan, prefix),
        "stage": stage,
        "state_buffers": _state_buffers(graph, plan, prefix),
        "pools": _pool_declarations(plan, pool_arrays(plan, prefix), prefix),
        "step_params": step_params,
        "table_bodies": {s.index: [c_array_body(t.values) for t in s.call.tables] for s in steps if s.call},
        "variadic_types": {s.index: pointer_type(graph.tensors[s.inputs[0].index].dtype, const=True)
                           for s in steps if s.call and s.call.variadic_inputs},
        "variadic_output_types": {s.index: pointer_type(graph.tensors[s.outputs[0].index].dtype, const=False)
                                  for s in steps if s.call and s.call.variadic_outputs},
    }
    files = {name: _TEMPLATES.get_template(name + ".j2").render(context) for name in GENERATED_FILES}
    runtime_parts = RUNTIME_PARTS + (("packed",) if interface == "packed" else ())
    manifest = _manifest(graph, plan, steps, interface, files, runtime_parts, options)
    files.update(integration_files(manifest, source))
    return GeneratedModel(files, runtime_parts, manifest)


def write_output(generated: GeneratedModel, out_dir: Path) -> None:
    """Write the generated files, their manifest and a copy of the runtime they need into out_dir, all or
    nothing: everything is written to a scratch directory on out_dir's file system first (beside a new out_dir,
    which it then becomes by one rename; inside an existing one; one a killed run left is removed by the next),
    then moved into place. A file-system error
    (out_dir a file, read-only, full) is an OutputPathError naming out_dir, with the scratch directory removed."""
    out_dir = check_output_dir(out_dir)
    try:
        _write_output(generated, out_dir)
    except OSError as error:
        raise output_error("output directory", out_dir, error) from None


def _write_output(generated: GeneratedModel, out_dir: Path) -> None:
    existed = out_dir.is_dir()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    scratch = scratch_dir(out_dir if existed else out_dir.parent, out_dir.name)
    try:
        for name, text in generated.files.items():
            (scratch / name).write_text(text)
        write_manifest(generated.manifest, scratch)
        (scratch / "runtime").mkdir()
        _copy_runtime(generated, scratch / "runtime")
        if not existed:
            move(scratch, out_dir)
            return
        for name in [*generated.files, MANIFEST_FILE]:
            move(scratch / name, out_dir / name)
        if (out_dir / "runtime").is_dir():
            shutil.rmtree(out_dir / "runtime")
        move(scratch / "runtime", out_dir / "runtime")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _copy_runtime(generated: GeneratedModel, runtime: Path) -> None:
    """The runtime's folders beside the model; of its kernels, only those the manifest lists."""
    for part in generated.runtime_parts:
        if part != "kernels":
            copy_tree(RUNTIME_DIR / part, runtime / part)
    (runtime / "kernels").mkdir()
    for name in generated.manifest.sources:
        if name.startswith("runtime/kernels/"):
            kernel = name.removeprefix("runtime/")
            (runtime / kernel).parent.mkdir(exist_ok=True)
            shutil.copyfile(RUNTIME_DIR / kernel, runtime / kernel)
