"""The importer and planner fuzz campaign (issue 10): mutated models through inspect, plan and generate, in-process.

Mutations start from the small zoo models: byte-level (truncation, flipped bits, overwritten words of the
flatbuffer) and field-level, on a ModelBuilder rebuilt from the model's graph (wrong tensor indices, huge or
negative shapes, negative or zero strides and filters, zero, NaN or infinite scales, quantization arrays of the
wrong length or axis, swapped dtypes and opcodes, wrong constant sizes, dropped or repeated operators).
Every case must end in a result or a one-line UserError, in under 5 s: anything else is a finding.

Used by tests/test_model_fuzz.py (reduced, seeded) and bench/model_fuzz.py (the full campaign).
"""

from __future__ import annotations

import copy
import math
import random
import signal
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from firmware_gen.check.model_summary import summarize
from firmware_gen.driver.compiler import generate, plan_model
from firmware_gen.errors import UserError
from firmware_gen.frontend.ir import Graph
from firmware_gen.frontend.tflite_reader import read_model
from firmware_gen.modelgen import zoo
from firmware_gen.modelgen.writer import OPTION_WRITERS, ModelBuilder, _Operator, _Tensor

CASE_SECONDS = 5.0
BASE_MODELS: dict[str, Callable[[], bytes]] = {"tiny_cnn": zoo.tiny_cnn, "residual_block": zoo.residual_block,
                                                "every_op": zoo.every_op}
_INTS = (-(2 ** 31), -7, -1, 0, 2, 7, 255, 2 ** 16, 2 ** 31 - 1)
_DIMS = (-1, 0, 1, 3, 2 ** 16, 2 ** 20, 2 ** 31 - 1)
_SCALES = (0.0, -1.0, math.nan, math.inf, -math.inf, 1e-45, 1e38, 5e-324)
_ZERO_POINTS = (-(2 ** 40), -129, -128, 127, 128, 2 ** 31, 2 ** 62)
_INT_OPTIONS = ("stride_h", "stride_w", "dilation_h", "dilation_w", "filter_h", "filter_w", "depth_multiplier",
                "axis")


class CaseTimeout(Exception):
    """A case ran longer than CASE_SECONDS."""


def builder_from_graph(graph: Graph) -> ModelBuilder:
    """A ModelBuilder holding `graph`'s tensors and operators, to be mutated field by field and written again."""
    builder = ModelBuilder(graph.name)
    for t in graph.tensors:
        q = t.quantization
        builder.tensors.append(_Tensor(t.name, tuple(t.shape), t.dtype.numpy_type().dtype.name,
                                       None if q is None else tuple(q.scales),
                                       () if q is None else tuple(q.zero_points), 0 if q is None else q.axis,
                                       None if t.data is None else t.data.tobytes()))
    for op in graph.operators:
        builder.operators.append(_Operator(op.opcode, tuple(op.inputs), tuple(op.outputs), dict(op.options)))
    builder.inputs = list(graph.inputs)
    builder.outputs = list(graph.outputs)
    return builder


def _replace(values: tuple, rng: random.Random, choices: Callable[[], object]) -> tuple:
    if not values:
        return (choices(),)
    at = rng.randrange(len(values))
    return values[:at] + (choices(),) + values[at + 1:]


def _mutate_field(b: ModelBuilder, rng: random.Random) -> str:
    """One field-level mutation of b, in place; returns what it did."""
    n = len(b.tensors)
    tensor = rng.choice(b.tensors)
    op = rng.choice(b.operators) if b.operators else None
    kind = rng.randrange(13)
    index = lambda: rng.choice((-2, -1, n, n + 5, 2 ** 31 - 1, rng.randrange(n)))  # noqa: E731
    if kind == 0 and op:
        op.inputs = _replace(op.inputs, rng, index)
        return f"operator {op.opcode} input index"
    if kind == 1 and op:
        op.outputs = _replace(op.outputs, rng, index)
        return f"operator {op.opcode} output index"
    if kind == 2:
        target = rng.choice((b.inputs, b.outputs))
        target[rng.randrange(len(target))] = index() if target else index()
        return "graph input/output index"
    if kind == 3:
        tensor.shape = _replace(tensor.shape, rng, lambda: rng.choice(_DIMS)) if rng.random() < 0.8 else \
            tensor.shape[:-1] if rng.random() < 0.5 else tensor.shape + (rng.choice(_DIMS),)
        return f"tensor {tensor.name} shape {tensor.shape}"
    if kind == 4 and op:
        op.options[rng.choice(_INT_OPTIONS)] = rng.choice(_INTS)
        return f"operator {op.opcode} options {op.options}"
    if kind == 5 and tensor.scales:
        tensor.scales = _replace(tensor.scales, rng, lambda: rng.choice(_SCALES))
        return f"tensor {tensor.name} scales"
    if kind == 6 and tensor.zero_points:
        tensor.zero_points = _replace(tensor.zero_points, rng, lambda: rng.choice(_ZERO_POINTS))
        return f"tensor {tensor.name} zero points"
    if kind == 7 and tensor.scales:
        grow = rng.choice((0, 2, 3, 64))
        tensor.scales = tensor.scales[:1] * grow
        if rng.random() < 0.5:
            tensor.zero_points = tensor.zero_points[:1] * rng.choice((0, 1, grow + 1))
        else:
            tensor.zero_points = tensor.zero_points[:1] * grow
        tensor.axis = rng.choice((0, tensor.axis, -1, 3, 9))
        return f"tensor {tensor.name} quantization lengths"
    if kind == 8:
        tensor.dtype = rng.choice(("int8", "uint8", "int16", "int32", "int64", "float32", "bool"))
        return f"tensor {tensor.name} dtype {tensor.dtype}"
    if kind == 9 and tensor.data is not None:
        cut = rng.randrange(len(tensor.data) + 1)
        tensor.data = tensor.data[:cut] if rng.random() < 0.5 else tensor.data + bytes(rng.randrange(1, 9))
        return f"tensor {tensor.name} data length"
    if kind == 10 and op:
        op.opcode = rng.choice(sorted(OPTION_WRITERS))
        op.options.setdefault("filter_h", 2)
        op.options.setdefault("filter_w", 2)
        return f"opcode {op.opcode}"
    if kind == 11 and op:
        at = b.operators.index(op)
        if rng.random() < 0.5:
            del b.operators[at]
        else:
            b.operators.insert(at, copy.deepcopy(op))
        return "operator removed or repeated"
    if kind == 12 and op and op.opcode in ("RESHAPE", "SQUEEZE"):
        key = "new_shape" if op.opcode == "RESHAPE" else "squeeze_dims"
        op.options[key] = tuple(rng.choice(_INTS + (1, 4)) for _ in range(rng.randrange(0, 5)))
        return f"{op.opcode} {key} {op.options[key]}"
    return ""  # nothing applied: the caller draws again


def _mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    data = bytearray(data)
    kind = rng.randrange(3)
    if kind == 0:
        cut = rng.randrange(len(data))
        return bytes(data[:cut]), f"truncated at {cut}"
    if kind == 1:
        for _ in range(rng.randrange(1, 9)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data), "bits flipped"
    at = rng.randrange(0, len(data) - 4)
    data[at:at + 4] = rng.choice((0, 0xFFFFFFFF, 0x7FFFFFFF, rng.getrandbits(32), len(data))).to_bytes(4, "little")
    return bytes(data), f"word at {at} overwritten"


@dataclass(frozen=True)
class Case:
    seed: int
    base: str
    mutation: str
    data: bytes


def make_case(seed: int, bases: dict[str, bytes], graphs: dict[str, Graph]) -> Case:
    rng = random.Random(seed)
    base = rng.choice(sorted(bases))
    if rng.random() < 0.35:
        data, what = _mutate_bytes(bases[base], rng)
        return Case(seed, base, what, data)
    builder = builder_from_graph(graphs[base])
    done = []
    while len(done) < rng.choice((1, 1, 2, 3)):
        what = _mutate_field(builder, rng)
        if what:
            done.append(what)
    try:
        return Case(seed, base, "; ".join(done), builder.build())
    except Exception as error:  # noqa: BLE001 - a mutation the writer cannot express: the bytes of the base, cut
        data, what = _mutate_bytes(bases[base], rng)
        return Case(seed, base, f"{what} (writer refused {type(error).__name__})", data)


@dataclass
class Outcome:
    seed: int
    verdict: str  # result, user_error, traceback, slow
    seconds: float
    stage: str
    detail: str = ""


def _alarm(signum: int, frame: object) -> None:
    raise CaseTimeout(f"over {CASE_SECONDS:g} s")


def _pipeline(data: bytes, out_dir: Path) -> Iterator[str]:
    """inspect, plan, generate: yields the name of each stage before running it."""
    yield "read"
    graph = read_model(data, "fuzz.tflite")
    yield "inspect"
    summarize(graph)
    yield "plan"
    plan_model(graph)
    yield "generate"
    generate(graph, out_dir, source="fuzz.tflite")


def run_case(case: Case, out_dir: Path) -> Outcome:
    stage = "read"
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    started = time.monotonic()
    try:
        for reached in _pipeline(case.data, out_dir):
            stage = reached
        verdict, detail = "result", ""
    except CaseTimeout as error:
        verdict, detail = "slow", str(error)
    except UserError as error:
        text = str(error)
        verdict, detail = ("user_error", text) if text and "\n" not in text else ("traceback", repr(text))
    except Exception:  # noqa: BLE001 - the campaign counts exactly these
        verdict, detail = "traceback", traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    seconds = time.monotonic() - started
    if seconds > CASE_SECONDS and verdict != "slow":
        verdict, detail = "slow", f"{seconds:.1f} s: {detail}"
    return Outcome(case.seed, verdict, seconds, stage, detail)


def campaign(seeds: range | list[int]) -> list[Outcome]:
    bases = {name: make() for name, make in BASE_MODELS.items()}
    graphs = {name: read_model(data, name) for name, data in bases.items()}
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="fg-model-fuzz-") as tmp:
        for seed in seeds:
            case = make_case(seed, bases, graphs)
            outcome = run_case(case, Path(tmp) / "out")
            outcome.detail = f"[{case.base}: {case.mutation}] {outcome.detail}"
            outcomes.append(outcome)
    return outcomes


def counts(outcomes: list[Outcome]) -> dict[str, int]:
    tally = Counter(o.verdict for o in outcomes)
    return {"cases": len(outcomes), **{v: tally.get(v, 0) for v in ("result", "user_error", "traceback", "slow")}}
