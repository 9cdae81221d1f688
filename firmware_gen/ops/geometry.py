"""Spatial geometry of windowed operators (convolution, pooling), exactly as TFLite computes it."""

from __future__ import annotations

from dataclasses import dataclass


def effective_filter_size(filter_size: int, dilation: int) -> int:
    return (filter_size - 1) * dilation + 1


def output_size(padding: str, in_size: int, filter_size: int, stride: int, dilation: int = 1) -> int:
    """TFLite's ComputeOutSize."""
    if padding == "SAME":
        return (in_size + stride - 1) // stride
    return (in_size + stride - effective_filter_size(filter_size, dilation)) // stride


def padding_before(in_size: int, filter_size: int, stride: int, dilation: int, out_size: int) -> int:
    """Rows (or columns) of implicit zero padding before the first input element (TFLite puts the odd
    one after)."""
    total = (out_size - 1) * stride + effective_filter_size(filter_size, dilation) - in_size
    return max(total, 0) // 2


@dataclass(frozen=True)
class Window2D:
    """One 2-D sliding window: filter size, stride, dilation and the padding it implies."""

    in_h: int
    in_w: int
    filter_h: int
    filter_w: int
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int
    out_h: int
    out_w: int
    pad_top: int
    pad_left: int


def window_2d(padding: str, in_hw: tuple[int, int], filter_hw: tuple[int, int], stride_hw: tuple[int, int],
              dilation_hw: tuple[int, int] = (1, 1)) -> Window2D:
    in_h, in_w = in_hw
    fh, fw = filter_hw
    sh, sw = stride_hw
    dh, dw = dilation_hw
    out_h = output_size(padding, in_h, fh, sh, dh)
    out_w = output_size(padding, in_w, fw, sw, dw)
    return Window2D(in_h, in_w, fh, fw, sh, sw, dh, dw, out_h, out_w,
                    padding_before(in_h, fh, sh, dh, out_h), padding_before(in_w, fw, sw, dw, out_w))
