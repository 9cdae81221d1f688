"""The numerical oracle: TensorFlow Lite Micro's own kernels (PyPI `tflite-micro`).

TFLM can crash the process on a model it dislikes, so it always runs in a child process: one forked for each run
by a server that has imported tflite_micro once (fork_server.py); tensors come back through an .npz file.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_gen.check.fork_server import STDERR_FILE, ForkServer, serve
from firmware_gen.errors import ToolchainError, UserError

_INSTALL_HINT = "pip install tflite-micro"
_MIN_ARENA_BYTES = 1 << 20


@dataclass
class OracleResult:
    outputs: list[np.ndarray]
    tensors: dict[int, np.ndarray]  # every tensor TFLM kept (preserve-all-tensors), by index


_SERVER = ForkServer([sys.executable, "-m", "firmware_gen.check.oracle", "--serve"])


def _run_worker(work: Path, what: str, timeout: float, label: str) -> None:
    """TFLM in a child process on the files in work (_main below); its failures as one-line errors."""
    status = _SERVER.run(work, what, timeout)
    if status is None:
        raise UserError(f"TensorFlow Lite Micro did not finish{label} within {timeout:.0f} s")
    if status == 3:
        raise ToolchainError(f"the oracle needs TensorFlow Lite Micro: {_INSTALL_HINT}")
    if status != 0:
        errors = work / STDERR_FILE
        text = errors.read_text(errors="replace") if errors.exists() else ""
        last = (text.strip().splitlines() or [f"exit status {status}"])[-1]
        raise UserError(f"TensorFlow Lite Micro failed on this model: {last}")


def run_tflm(model: bytes, inputs: list[np.ndarray], num_tensors: int, timeout: float = 300.0) -> OracleResult:
    with tempfile.TemporaryDirectory(prefix="fg-oracle-") as tmp:
        work = Path(tmp)
        (work / "model.tflite").write_bytes(model)
        np.savez(work / "inputs.npz", *inputs)
        _run_worker(work, str(num_tensors), timeout, "")
        with np.load(work / "result.npz") as result:
            outputs = [result[f"output_{i}"] for i in range(len([k for k in result.files if k.startswith("output_")]))]
            tensors = {int(k.split("_")[1]): result[k] for k in result.files if k.startswith("tensor_")}
    return OracleResult(outputs=outputs, tensors=tensors)


def run_tflm_batch(model: bytes, samples: list[list[np.ndarray]], timeout: float = 600.0) -> list[list[np.ndarray]]:
    """The outputs of every sample (one list of inputs each), all in one child process and one interpreter."""
    return [run.outputs for run in _run_in_order(model, samples, 0, timeout, f" {len(samples)} samples")]


def run_tflm_sequence(model: bytes, frames: list[list[np.ndarray]], num_tensors: int,
                      timeout: float = 600.0) -> list[OracleResult]:
    """Every tensor after each invocation of one interpreter run on the frames in order: its variable tensors
    (state) are never reset between them, as an application runs a stateful model."""
    return _run_in_order(model, frames, num_tensors, timeout, f" {len(frames)} invocations")


def _run_in_order(model: bytes, runs: list[list[np.ndarray]], num_tensors: int, timeout: float,
                  label: str) -> list[OracleResult]:
    """One interpreter invoked on each run's inputs in turn (never reset); the outputs of each and, with
    num_tensors, its first num_tensors tensors."""
    with tempfile.TemporaryDirectory(prefix="fg-oracle-") as tmp:
        work = Path(tmp)
        (work / "model.tflite").write_bytes(model)
        np.savez(work / "inputs.npz", **{f"r{r}_{i}": x for r, run in enumerate(runs) for i, x in enumerate(run)})
        _run_worker(work, f"in-order {num_tensors}", timeout, label)
        results = [OracleResult([], {}) for _ in runs]
        with np.load(work / "result.npz") as result:
            for key in sorted(result.files, key=lambda k: tuple(int(p) for p in k[1:].split("_"))):
                run, index = (int(p) for p in key[1:].split("_"))
                if key[0] == "o":
                    results[run].outputs.append(result[key])
                else:
                    results[run].tensors[index] = result[key]
    return results


def _in_order_worker(work: Path, num_tensors: int) -> int:
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        return 3
    model = (work / "model.tflite").read_bytes()
    configs = runtime.InterpreterConfig
    config = configs.kPreserveAllTensors if num_tensors else configs.kAllocationRecording  # the default
    interpreter = runtime.Interpreter.from_bytes(model, arena_size=max(10 * len(model), _MIN_ARENA_BYTES),
                                                 intrepreter_config=config)
    runs: dict[int, dict[int, np.ndarray]] = {}
    with np.load(work / "inputs.npz") as inputs:
        for key in inputs.files:
            run, index = (int(p) for p in key[1:].split("_"))
            runs.setdefault(run, {})[index] = inputs[key]
    result, outputs = {}, _num_outputs(interpreter)
    for run in sorted(runs):
        for index, array in runs[run].items():
            interpreter.set_input(array, index)
        interpreter.invoke()
        for i in range(num_tensors):
            result[f"t{run}_{i}"] = np.asarray(interpreter.GetTensor(i, 0)["tensor_data"]).copy()
        for i in range(outputs):
            result[f"o{run}_{i}"] = np.asarray(interpreter.get_output(i)).copy()
    np.savez(work / "result.npz", **result)
    return 0


def _num_outputs(interpreter) -> int:
    count = 0
    while True:
        try:
            interpreter.get_output(count)
        except Exception:
            return count
        count += 1


def _worker(work: Path, num_tensors: int) -> int:
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        return 3
    model = (work / "model.tflite").read_bytes()
    # TFLM's default arena (10x the model size) is too small for small synthetic models.
    interpreter = runtime.Interpreter.from_bytes(model, arena_size=max(10 * len(model), _MIN_ARENA_BYTES),
                                                 intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)
    with np.load(work / "inputs.npz") as inputs:
        for i, name in enumerate(sorted(inputs.files, key=lambda n: int(n.split("_")[1]))):
            interpreter.set_input(inputs[name], i)
    interpreter.invoke()
    result = {}
    for i in range(num_tensors):
        result[f"tensor_{i}"] = np.asarray(interpreter.GetTensor(i, 0)["tensor_data"])
    i = 0
    while True:
        try:
            result[f"output_{i}"] = np.asarray(interpreter.get_output(i))
        except Exception:
            break
        i += 1
    np.savez(work / "result.npz", **result)
    return 0


def _main(work: Path, what: str) -> int:
    if what.startswith("in-order "):
        return _in_order_worker(work, int(what.split()[1]))
    return _worker(work, int(what))


def _serve() -> None:
    """The fork server (`--serve CLIENT_PID`): tflite_micro imported once, before any child is forked."""
    try:
        from tflite_micro.python.tflite_micro import runtime  # noqa: F401
    except ImportError:
        pass  # each child then reports it (exit status 3)
    serve(_main)


if __name__ == "__main__":
    _serve()
