"""Armv7E-M (DSP extension) 3x3 depthwise convolution of stride 2 both ways with a filter row's first two taps paired
by SMLAD (runtime_c/kernels/depthwise_convolution/depthwise_conv2d_3x3_taps_s2_dsp.c): four channels at a time, a
band of input rows sign-extended on the stack (4,608 bytes), a word X_k = (x[2k], x[2k + 1]) of one channel; rows of
8, 16 or 24 outputs, output p of a filter row SMLAD(X_p, (w0, w1)) + SMLABT(X_p+1, (w1, w2)): 6 multiplies an output
against the ring kernel's 9 (dsp_window.py's RING_DEPTHWISE, which keeps the layers and cores this one does not
take)."""

from __future__ import annotations

from firmware_gen.frontend.ir import Graph, Operator
from firmware_gen.isa import Isa
from firmware_gen.ops.base import KernelCall
from firmware_gen.ops.variants import Variant, whole_input_pixels
from firmware_gen.ops.variants.dsp import REQUIRES
from firmware_gen.ops.variants.dsp_taps import taps_call

TAPS_S2_WORDS = 32  # FG_DSP_DW_TAPS_S2_WORDS: a band row's column pairs
# Where it was measured faster than the ring kernel (ESTIMATED, published memory): vww_96_int8's 48 x 48 x 16 input
# (24 outputs a row) M4 289,524 -> 268,688 cycles, M33 289,460 -> 268,735 (instructions 233,160 -> 212,360). Rows of
# other widths run the ring kernel's quad and triple passes: its 12-, 6- and 3-wide layers lost here (12 wide, M4: the
# row's last four outputs one at a time 144 K -> 267 K, a pass of four in the assembly 144 K -> 152 K: the ring
# kernel extends that small image once); the M7 keeps the ring kernel (not measured).
TAPS_S2_CORES = ("cortex-m4", "cortex-m33")


def taps_s2_width(params: dict) -> bool:
    """Whether the kernel's passes of eight and its band rows take the layer's (or a patch's) rows."""
    return params["out_w"] % 8 == 0 and params["out_w"] + 1 <= TAPS_S2_WORDS


def taps_s2_fits(params: dict, core: str = "") -> bool:
    """Whether fg_depthwise_conv2d_3x3_taps_s2_dsp's geometry and clamp take the layer on the core."""
    if core not in TAPS_S2_CORES or params["in_c"] % 4 or not taps_s2_width(params):
        return False
    if (params["dilation_h"], params["dilation_w"], params["stride_h"], params["stride_w"]) != (1, 1, 2, 2):
        return False
    return tuple(params["requant"][2:4]) == (-128, 127)


def _taps_s2_depthwise(graph: Graph, op: Operator, call: KernelCall, isa: Isa) -> KernelCall | None:
    return taps_call(graph, op, call, TAPS_S2_DEPTHWISE) if taps_s2_fits(call.params, isa.core) else None


TAPS_S2_DEPTHWISE = Variant("fg_depthwise_conv2d_3x3_taps_s2_dsp", "fg_depthwise_conv2d_3x3_s8", REQUIRES,
                            _taps_s2_depthwise, "stride 2, 4 channels at a time, a band of input rows int16 with "
                            "two adjacent inputs of a channel a word; 8 outputs of a channel per pass, a filter row's "
                            "first two taps paired (SMLAD + SMLABT: 6 multiplies per output), SMMULR output stage",
                            precedence=1, overlap_granule=whole_input_pixels, takes_isa=True)

VARIANTS = [TAPS_S2_DEPTHWISE]
