"""Random small chains of windowed layers (and int8 activations, requantizations, residual blocks) for the
patch-stage tests: a stage to force, then a layer after it."""

from __future__ import annotations

import random

from firmware_gen.modelgen.calibrated import CalibratedBuilder, calibration_images


def _out(size: int, kernel: int, stride: int, padding: str) -> int:
    return -(-size // stride) if padding == "SAME" else (size - kernel) // stride + 1


def random_stage_model(seed: int) -> tuple[bytes, int, int]:
    """(model, the operator index the stage ends at, its output's height and width (the smaller))."""
    rng = random.Random(seed)
    size, channels = rng.randint(10, 20), rng.choice([1, 3, 4])
    graph = CalibratedBuilder(name=f"patch_chain_{seed}", seed=seed)
    x = graph.input("input", calibration_images(graph.rng, 4, size, size, channels), dtype="int8")
    layers = rng.randint(2, 4)
    for layer in range(layers):
        kinds = ["conv", "conv", "depthwise", "depthwise", "pool", "elementwise"] + ["residual"] * (layer > 0)
        kind = rng.choice(kinds)
        kernel, stride = rng.choice([1, 2, 3, 5]), rng.choice([1, 1, 2])
        padding = rng.choice(["SAME", "VALID"])
        if _out(size, kernel, stride, padding) < 2:
            kernel, stride, padding = 1, 1, "SAME"
        name = f"layer{layer}"
        if kind == "residual":  # a branch of one SAME layer, added back: the block's input read twice
            if rng.random() < 0.5:
                branch = graph.conv2d(x, x.values.shape[3], kernel=rng.choice([1, 3, 5]), name=f"{name}_branch")
            else:
                branch = graph.depthwise_conv2d(x, kernel=rng.choice([3, 5]), name=f"{name}_branch")
            x = graph.add(x, branch, activation=rng.choice(["NONE", "RELU"]), name=name)
        elif kind == "conv":
            x = graph.conv2d(x, rng.choice([4, 8]), kernel=kernel, stride=stride, padding=padding, name=name)
        elif kind == "depthwise":
            x = graph.depthwise_conv2d(x, kernel=kernel, stride=stride, multiplier=rng.choice([1, 2]),
                                       padding=padding, name=name)
        elif kind == "elementwise":  # int8 -> int8: a lookup table over the region's elements
            x = graph.logistic(x, name=name) if rng.random() < 0.5 else graph.quantize(x, name=name)
        elif rng.random() < 0.5:
            x = graph.max_pool(x, max(kernel, 2), stride=stride, padding=padding, name=name)
        else:
            x = graph.average_pool(x, max(kernel, 2), stride=stride, padding=padding, name=name)
        size = x.values.shape[1]
    graph.output(graph.conv2d(x, 4, kernel=1, name="after"))
    return graph.build(), len(graph.model.operators) - 2, size
