"""Export small, seeded Keras models as fully-int8 TFLite files: the converter's real output for the tests.

Run with TensorFlow in a virtual environment of its own (it is too big for the project's test install):

    python3 -m venv /work/tfvenv && /work/tfvenv/bin/pip install "tensorflow-cpu==2.18.1" "tf_keras==2.18.0"
    /work/tfvenv/bin/python scripts/export_keras_models.py [OUT_DIR]      # Keras 3; default tests/fixtures/keras/
    TF_USE_LEGACY_KERAS=1 /work/tfvenv/bin/python scripts/export_keras_models.py [OUT_DIR]   # Keras 2: tf_keras_*

The committed fixtures were written with TensorFlow 2.18.1 (tensorflow-cpu 2.18.1; tf_keras 2.18.0 pulls in the
tensorflow 2.18.1 wheel beside it), keras 3.15.1 and tf_keras 2.18.0, Python 3.11. The weights, the
representative data set and the converter's inputs are all seeded; a run writes the CNN and U-Net models again
byte for byte, but the converter itself is not deterministic on the GRU: one run leaves the first time step's
SPLIT in float between DEQUANTIZE and QUANTIZE, another quantizes it (the committed keras_sequence has the float
one). Each model is converted with full-integer quantization: a representative data set, int8 inputs and
outputs, TFLITE_BUILTINS_INT8 only.

Keras 3's UpSampling2D converts to RESHAPE + TILE, and TFLite Micro registers no TILE kernel (its interpreter
refuses the model), so there is no oracle: keras_upsampling (UpSampling2D alone) is exported to pin the refusal,
and the U-Net upsamples with Resizing(interpolation="nearest"), which converts to RESIZE_NEAREST_NEIGHBOR. Keras
2's UpSampling2D converts to RESIZE_NEAREST_NEIGHBOR (tf_keras_upsampling compiles).

The models cover the standard Keras layers a user brings to a microcontroller:
- keras_cnn: Conv2D, DepthwiseConv2D, BatchNormalization (folded and standalone), ReLU, HardSwish, Swish,
  LeakyReLU, PReLU, Add, Multiply, Subtract, Concatenate, MaxPooling2D, AveragePooling2D,
  GlobalAveragePooling2D, Flatten, Dense, Softmax;
- keras_unet: Conv2D, MaxPooling2D, Conv2DTranspose, Resizing (nearest and bilinear), Concatenate, Reshape;
- keras_sequence: Dense on a sequence, MultiHeadAttention, LayerNormalization, GRU (unrolled), Dense.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

# Keras 2 (tf_keras, with TF_USE_LEGACY_KERAS=1) where its API differs: what many exported models still come from.
LEGACY_KERAS = layers.Layer.__module__.startswith("tf_keras")
SEED = 15
REPRESENTATIVE_SAMPLES = 64
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "keras"


def _hard_swish(x):
    if not LEGACY_KERAS:
        return layers.Activation("hard_swish")(x)
    relu6 = layers.ReLU(6.0)(layers.Rescaling(1.0, offset=3.0)(x))  # tf_keras has no hard_swish activation
    return layers.Multiply()([x, layers.Rescaling(1.0 / 6.0)(relu6)])


def _leaky_relu(slope: float) -> layers.Layer:
    return layers.LeakyReLU(alpha=slope) if LEGACY_KERAS else layers.LeakyReLU(negative_slope=slope)


def keras_cnn() -> keras.Model:
    x_in = keras.Input((16, 16, 3), batch_size=1)
    x = layers.Conv2D(8, 3, padding="same", use_bias=False)(x_in)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.DepthwiseConv2D(3, padding="same")(x)
    x = _hard_swish(x)
    swish = layers.Conv2D(8, 1, activation="swish")(x)
    leaky = _leaky_relu(0.2)(layers.Conv2D(8, 1)(x))
    prelu = layers.PReLU(shared_axes=[1, 2])(layers.Conv2D(8, 1)(x))
    x = layers.Add()([swish, leaky])
    x = layers.Multiply()([x, prelu])
    x = layers.Subtract()([x, leaky])
    x = layers.BatchNormalization()(x)
    x = layers.Concatenate()([layers.MaxPooling2D(2)(x), layers.AveragePooling2D(2)(prelu)])
    pooled = layers.GlobalAveragePooling2D()(x)
    flat = layers.Flatten()(layers.MaxPooling2D(4)(x))
    x = layers.Concatenate()([pooled, flat])
    x = layers.Dense(10, activation="softmax")(x)
    return keras.Model(x_in, x, name="keras_cnn")


def keras_unet() -> keras.Model:
    x_in = keras.Input((16, 16, 2), batch_size=1)
    skip = layers.Conv2D(8, 3, padding="same", activation="relu")(x_in)
    x = layers.MaxPooling2D(2)(skip)
    x = layers.Conv2D(12, 3, padding="same", activation="relu")(x)
    up_transposed = layers.Conv2DTranspose(8, 3, strides=2, padding="same")(x)
    up_nearest = layers.Resizing(16, 16, interpolation="nearest")(x)
    up_bilinear = layers.Resizing(16, 16, interpolation="bilinear")(x)
    x = layers.Concatenate()([skip, up_transposed, up_nearest, up_bilinear])
    x = layers.Conv2D(4, 1)(x)
    x = layers.Reshape((16 * 16, 4))(x)
    return keras.Model(x_in, x, name="keras_unet")


def keras_sequence() -> keras.Model:
    x_in = keras.Input((8, 12), batch_size=1)
    x = layers.Dense(16)(x_in)
    attended = layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    x = layers.LayerNormalization()(layers.Add()([x, attended]))
    x = layers.GRU(12, unroll=True)(x)
    x = layers.Dense(4)(x)
    return keras.Model(x_in, x, name="keras_sequence")


def keras_upsampling() -> keras.Model:
    """Refused, as TFLite Micro refuses it: UpSampling2D converts to TILE."""
    x_in = keras.Input((4, 4, 2), batch_size=1)
    return keras.Model(x_in, layers.UpSampling2D(2)(layers.Conv2D(2, 1)(x_in)), name="keras_upsampling")


MODELS: dict[str, Callable[[], keras.Model]] = {
    "keras_cnn": keras_cnn,
    "keras_unet": keras_unet,
    "keras_sequence": keras_sequence,
    "keras_upsampling": keras_upsampling,
}


def _randomize_batch_norms(model: keras.Model, rng: np.random.Generator) -> None:
    """Moving statistics other than (0, 1), as a trained model has: BatchNormalization is not a no-op."""
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            gamma, beta, mean, variance = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape), rng.normal(0, 0.2, beta.shape),
                               rng.normal(0, 0.3, mean.shape), rng.uniform(0.5, 2.0, variance.shape)])


def convert(model: keras.Model, seed: int = SEED) -> bytes:
    """The model as a fully-int8 TFLite flatbuffer (int8 inputs and outputs, int8 builtins only)."""
    rng = np.random.default_rng(seed)
    shape = [int(d) for d in model.inputs[0].shape]

    def representative() -> Iterator[list[np.ndarray]]:
        for _ in range(REPRESENTATIVE_SAMPLES):
            yield [rng.normal(0.0, 1.0, shape).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = tf.int8
    converter.inference_output_type = tf.int8
    return converter.convert()


def export(out_dir: Path) -> list[Path]:
    """Build, seed and convert every model into out_dir; the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in MODELS.items():
        keras.utils.set_random_seed(SEED)
        model = build()
        _randomize_batch_norms(model, np.random.default_rng(SEED))
        path = out_dir / f"{'tf_' if LEGACY_KERAS else ''}{name}.tflite"
        path.write_bytes(convert(model))
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in export(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT):
        print(f"wrote {written_path} ({written_path.stat().st_size:,} B)")
