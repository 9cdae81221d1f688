"""The head the seeded keyword spotters share: FULLY_CONNECTED to int8 logits, then SOFTMAX to probabilities (scale
1/256, zero point -128, as the converter writes them), the model's output."""

from __future__ import annotations

import numpy as np

from firmware_gen.modelgen.writer import ModelBuilder

LOGITS_SCALE = 0.05  # logits of about +-2: a soft softmax


def add_classifier_head(model: ModelBuilder, rng: np.random.Generator, source: int, classes: int,
                        weights_scale: float) -> None:
    """Seeded weights in [-127, 127] at weights_scale and biases in [-500, 500] after tensor `source` ([1, N] int8)."""
    hidden_scale = model.tensors[source].scales[0]
    features = model.tensors[source].shape[-1]
    weights = model.constant("fc/weights", rng.integers(-127, 128, size=(classes, features)).astype(np.int8),
                             scale=weights_scale)
    bias = model.constant("fc/bias", rng.integers(-500, 501, size=classes).astype(np.int32),
                          scale=hidden_scale * weights_scale)
    logits = model.tensor("logits", (1, classes), "int8", scale=LOGITS_SCALE, zero_point=0)
    model.operator("FULLY_CONNECTED", [source, weights, bias], [logits])
    probabilities = model.tensor("probabilities", (1, classes), "int8", scale=1 / 256, zero_point=-128)
    model.operator("SOFTMAX", [logits], [probabilities])
    model.output(probabilities)
