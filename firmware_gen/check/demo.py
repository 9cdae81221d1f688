"""The demo: MobileNetV1 0.25 (96x96x3, int8, seeded weights) built, run on an emulated board, profiled, and
checked against TFLM."""

from __future__ import annotations

import numpy as np

from firmware_gen.abi import ExitStatus
from firmware_gen.check.board_validation import outputs_equal_oracle
from firmware_gen.check.inputs import random_inputs
from firmware_gen.check.profile import build_profile, format_profile
from firmware_gen.driver.deploy import Progress, prepare, run, stderr_progress
from firmware_gen.modelgen.mobilenet import mobilenet_v1
from firmware_gen.planner import PlanningOptions

DEMO_MODEL_NAME = "mobilenet_v1_025_96.tflite"


def run_demo(board: str = "qemu_cortex_m3", seed: int = 0, progress: Progress = stderr_progress,
             options: PlanningOptions = PlanningOptions()) -> int:
    """The exit status: 0 when the outputs equal TFLM's."""
    progress(f"building the demo model: MobileNetV1 alpha 0.25, 96x96x3 int8, weights seeded with {seed}")
    model = mobilenet_v1(seed=seed)
    deployment = prepare(model, DEMO_MODEL_NAME, board, progress=progress, options=options)
    print(deployment.firmware.summary())
    inputs = random_inputs(deployment.graph, seed)
    result = run(deployment, inputs, progress=progress)
    print(format_profile(build_profile(deployment.graph, result, deployment.compiled.calls)))
    progress("running the same input through TensorFlow Lite Micro")
    equal = outputs_equal_oracle(model, inputs, result.outputs, len(deployment.graph.tensors))
    scores = ", ".join(str(v) for v in np.asarray(result.outputs[0]).ravel()[:8])
    if all(equal):
        print(f"outputs equal TensorFlow Lite Micro's, byte for byte (output 0: [{scores}])")
        return ExitStatus.OK
    print(f"outputs DIFFER from TensorFlow Lite Micro's (output 0: [{scores}])")
    return ExitStatus.MISMATCH
