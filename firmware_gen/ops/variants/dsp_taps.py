"""Armv7E-M (DSP extension) 3x3 depthwise convolution of stride_w 1 with a filter row's taps paired by SMLAD
(runtime_c/kernels/depthwise_convolution/depthwise_conv2d_3x3_taps_dsp.c): four channels at a time, each channel's
input rows int16 of its own in a ring (a small image's all at once), six outputs of one channel per pass on the M4
and M33 (four on the M7's ring; a small image's row of up to six), 6 multiplies per output against the ring kernel's 9
(dsp_window.py's RING_DEPTHWISE, which keeps the layers this one does not take)."""

from __future__ import annotations

import numpy as np

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant, call_table, whole_input_pixels
from firmware_gen.ops.variants.dsp import REQUIRES, doubled_constants, packed_call
from firmware_gen.ops.variants.dsp_window import planar_depthwise_words

TAPS_COLUMNS = 64  # FG_DSP_DW_TAPS_COLUMNS: a channel's ring row (int16)
# Rows at least this wide: vww_96_int8's 48- and 24-wide layers run faster than on the ring kernel (ESTIMATED, published
# memory: M7 -10 % and -6 %, M4 -6 % and -2 %), its 12-, 6- and 3-wide ones ran slower through the ring (first version,
# M7 +24 % to +100 %; the M33 measured again when the path below was added: +25 %, +70 %, +108 %: per row and channel
# set-up, a pair's tail in C), which the small images' path below has not.
TAPS_MIN_WIDTH = 24
# Small images whole (FG_DSP_DW_TAPS_HEXA_ASM: six, five or three outputs of a channel a pass): rows of the core's
# TAPS_SMALL_WIDTHS outputs, stride 1, SAME (the rows' edge pixels as whole words beside their padding), at most
# TAPS_SMALL_ROWS padded rows of TAPS_SMALL_COLUMNS columns: vww_96_int8's 12 x 12, 6 x 6 and 3 x 3 layers of stride 1,
# kws_ref_model's 25 x 5, on the cores and widths where they were measured faster than the ring kernel's passes. The
# M7 (ESTIMATED, published memory, against the ring kernel): kws 25 x 5 131.7 -> 126.8 K cycles a layer (instructions
# 184.4 -> 154.5 K), vww 12 x 12 140.3 -> 131.2 K, 6 x 6 76.9 -> 73.7 K; its 3 x 3 48.4 -> 56.5 K: the ring's (the M7
# build has no pass of three). Since its LDRD passes and whole rows of five: kws 112.4 K (124.2 K instructions), vww
# 12 x 12 127.8 K, 6 x 6 69.1 K.
TAPS_SMALL_WIDTHS = (3, 5, 6, 12)
TAPS_SMALL_CORE_WIDTHS = {"cortex-m4": TAPS_SMALL_WIDTHS, "cortex-m33": TAPS_SMALL_WIDTHS, "cortex-m7": (5, 6, 12)}
TAPS_SMALL_ROWS = 28  # FG_DSP_DW_TAPS_SMALL_SLOTS
TAPS_SMALL_COLUMNS = 16  # FG_DSP_DW_TAPS_SMALL_COLUMNS


def taps_small(params: dict, core: str) -> bool:
    """Whether fg_depthwise_conv2d_3x3_taps_dsp runs the layer as a small image (its fg_dsp_dw_taps_small)."""
    return (params["out_w"] in TAPS_SMALL_CORE_WIDTHS.get(core, ()) and params["stride_h"] == 1
            and params["out_h"] + 2 <= TAPS_SMALL_ROWS and params["pad_left"] == 1 and params["in_w"] >= 2
            and params["in_w"] + 2 <= TAPS_SMALL_COLUMNS)


def taps_columns(params: dict) -> int:
    """The columns of a channel's ring row fg_depthwise_conv2d_3x3_taps_dsp reads: the image's after the left padding,
    or what its outputs, rounded up to pairs, read."""
    return max(params["pad_left"] + params["in_w"], 2 * -(-params["out_w"] // 2) + 2)


def taps_fits(params: dict, core: str = "") -> bool:
    """Whether fg_depthwise_conv2d_3x3_taps_dsp's geometry and clamp take the layer (its channels' constants aside) on
    the core."""
    if (params["dilation_h"], params["dilation_w"], params["stride_w"]) != (1, 1, 1):
        return False
    wide_enough = params["out_w"] >= TAPS_MIN_WIDTH or taps_small(params, core)
    if params["in_c"] % 4 or not wide_enough or taps_columns(params) > TAPS_COLUMNS:
        return False
    return tuple(params["requant"][2:4]) == (-128, 127)


def taps_table(taps: np.ndarray, constants: np.ndarray) -> np.ndarray:
    """The kernel's table for [channels, 9] weights (every channel narrow) and their doubled_constants: per channel its
    doubled bias, multiplier, offset and shift, then per filter row i the doubled weight words (w_i0, w_i1),
    (w_i1, w_i2)."""
    words = planar_depthwise_words(taps, np.ones(len(taps), dtype=bool)).reshape(len(taps), 6)
    return np.concatenate([constants.reshape(len(taps), 4), words], axis=1).ravel()


def taps_call(graph: Graph, op: Operator, call: KernelCall, variant: Variant) -> KernelCall | None:
    """call on `variant` (a kernel reading taps_table), or None where a channel is wide."""
    taps = call_table(call, "channel_taps").reshape(call.params["in_c"], 9)
    constants, narrow = doubled_constants(graph, op, call, taps)
    if not narrow.all():
        return None  # no wide channel's output stage: the ring or the word kernel runs it
    return packed_call(call, variant, np.zeros((0, 4), np.int32), taps_table(taps, constants), [op.inputs[0]])


def _taps_depthwise(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
    return taps_call(graph, op, call, TAPS_DEPTHWISE) if taps_fits(call.params, isa.core) else None


TAPS_DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_taps_dsp", "fg_depthwise_conv2d_3x3_s8", REQUIRES, _taps_depthwise,
                         "stride_w 1, 4 channels at a time over the image, each channel's rows int16 in a ring (a "
                         "small image's whole); 6 outputs of a channel per pass (the M7: 4; a small image's row of 3, "
                         "5, 6 or 12: 6 at most), a filter row's taps paired (SMLAD + SMLABT/SMLATB: 6 multiplies per "
                         "output), SMMULR output stage", precedence=1,
                         overlap_granule=whole_input_pixels, takes_isa=True)

VARIANTS = [TAPS_DEPTHWISE]
