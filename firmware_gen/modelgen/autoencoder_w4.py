"""A synthetic w4a8 model: an AD-style dense autoencoder (MLPerf Tiny's anomaly detection network: 640 inputs, four
dense layers of 128, a bottleneck of 8, four of 128, 640 outputs) with int8 activations and 4-bit weights, calibrated
as modelgen/calibrated.py does. Its 264,192 weights take 132,096 B as INT4; in int8 (as ad01_int8, 270,880 B with its
biases) they do not fit the 256 KiB flash of qemu_cortex_m3."""

from __future__ import annotations

from firmware_gen.modelgen.calibrated import CalibratedBuilder

FEATURES, HIDDEN, BOTTLENECK = 640, 128, 8
LAYERS = (HIDDEN,) * 4 + (BOTTLENECK,) + (HIDDEN,) * 4


class _W4Builder(CalibratedBuilder):
    weight_bits = 4


def dense_autoencoder_w4(seed: int = 0, int4: bool = True) -> bytes:
    """The autoencoder (`int4=False`: the same network with int8 weights, for comparison)."""
    builder = _W4Builder("ad_w4a8", seed) if int4 else CalibratedBuilder("ad_w8a8", seed)
    x = builder.input("features", builder.rng.normal(0.0, 1.0, (64, FEATURES)))
    for k, units in enumerate(LAYERS):
        x = builder.fully_connected(x, units, activation="RELU", name=f"dense{k}", mean=0.5)
    builder.output(builder.fully_connected(x, FEATURES, name="reconstruction"))
    return builder.build()
