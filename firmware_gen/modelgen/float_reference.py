"""The float side of calibration: int8 range fitting, (fake) quantization and the float convolutions the
calibrated builder runs on its calibration batch."""

from __future__ import annotations

import numpy as np


def fit_int8(values: np.ndarray) -> tuple[float, int]:
    """Scale and zero point covering [min, max] of `values` (always including 0, which must be exact)."""
    low, high = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    scale = max(high - low, 1e-6) / 255.0
    zero_point = int(np.clip(np.round(-128 - low / scale), -128, 127))
    return float(np.float32(scale)), zero_point


def quantize(values: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    return np.clip(np.round(values / scale) + zero_point, -128, 127).astype(np.int8)


def fake_quantize(values: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    return (quantize(values, scale, zero_point).astype(np.float64) - zero_point) * scale


def window_geometry(size: int, kernel: int, stride: int, dilation: int, padding: str) -> tuple[int, int]:
    """TFLite's output size and leading padding along one spatial axis."""
    effective = (kernel - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        return out, max((out - 1) * stride + effective - size, 0) // 2
    return -(-(size - effective + 1) // stride), 0


def tap_windows(values: np.ndarray, kernel: tuple[int, int], stride: int, padding: str, fill: float,
             dilation: int = 1) -> list[tuple[int, int, np.ndarray]]:
    """(ky, kx, strided input slice) for every kernel tap, the input padded with `fill`."""
    _, height, width, _ = values.shape
    out_h, top = window_geometry(height, kernel[0], stride, dilation, padding)
    out_w, left = window_geometry(width, kernel[1], stride, dilation, padding)
    bottom = max((out_h - 1) * stride + (kernel[0] - 1) * dilation + 1 - height - top, 0)
    right = max((out_w - 1) * stride + (kernel[1] - 1) * dilation + 1 - width - left, 0)
    padded = np.pad(values, [(0, 0), (top, bottom), (left, right), (0, 0)], constant_values=fill)
    return [(ky, kx, padded[:, ky * dilation:ky * dilation + (out_h - 1) * stride + 1:stride,
                            kx * dilation:kx * dilation + (out_w - 1) * stride + 1:stride, :])
            for ky in range(kernel[0]) for kx in range(kernel[1])]


def conv_forward(values: np.ndarray, weights: np.ndarray, stride: int, padding: str, depthwise: bool) -> np.ndarray:
    """Float convolution; weights (O, kh, kw, I), or (1, kh, kw, C * multiplier) when depthwise."""
    multiplier = weights.shape[3] // values.shape[3] if depthwise else 1
    total = 0.0
    for ky, kx, window in tap_windows(values, weights.shape[1:3], stride, padding, 0.0):
        if depthwise:
            total = total + np.repeat(window, multiplier, axis=3) * weights[0, ky, kx, :]
        else:
            total = total + window @ weights[:, ky, kx, :].T
    return np.asarray(total)
