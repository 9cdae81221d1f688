/* CONV_2D on int8 NHWC tensors with int8 OHWI filters (TFLite Micro reference semantics). */
#ifndef FG_CONV2D_H
#define FG_CONV2D_H

#include <stdint.h>

#include "fg/support/dot_s8.h"
#include "fg/support/requantize.h"
#include "fg/support/requantize_fast.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_top, pad_left;  /* implicit zero padding before the first row / column */
    fg_requant_params requant;
    /* The variants only: bias + input_offset * (sum of the channel's taps), computed at generation time. */
    const int32_t *folded_bias;
    /* The portable fast variants only: the filter in the register-blocked layout of fg/support/dot_s8.h (filter_h rows of
     * filter_w * in_c taps), written at generation time; they take no filter argument. */
    fg_blocked_filter blocked;
    /* An ISA variant only (firmware_gen/ops/variants): its constants laid out at generation time for its inner
     * loop (weights reordered, per-layer constants), in the layout that variant documents. */
    const void *packed;
    /* The 16x8 kernels only (fg/support/requantize.h). */
    fg_wide_bias wide;
    /* 16x8 with constant weights: the filter's groups of FG_S16_GROUP output channels interleaved
     * ([group][filter_h][filter_w][in_c][8]), then the other out_c % 8 channels as they are; the filter argument is
     * then NULL. */
    const int8_t *interleaved;
} fg_conv2d_params;

/* 16x8: int16 NHWC input and output (zero point 0), int8 filter [out_c, filter_h, filter_w, in_c] (or
 * params->interleaved), the bias in params->wide. */
void fg_conv2d_s16(const fg_conv2d_params *params, const int16_t *input, const int8_t *filter, int16_t *output);

/* filter is [out_c, filter_h, filter_w, in_c]; bias is [out_c] or NULL. Taps in the padding are skipped. */
void fg_conv2d_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, const int32_t *bias,
                  int8_t *output);

/* The fast variants, bit-exact with fg_conv2d_s8, taking the bias from params->folded_bias and the filter from
 * params->blocked (filter is NULL). Both compute output pixels two at a time in raster order (every input byte of
 * the pair read before its outputs are stored) and read no input pixel below the first one the pair's windows read.
 * pointwise: a 1x1 filter with stride 1 (every pixel a dot product per output channel).
 * folded: any geometry whose window has at most FG_CONV_GATHER_TAPS taps; a tap in the padding reads the input zero
 * point (x + input_offset = 0), which the folded bias expects. Border windows are gathered on the stack. */
#define FG_CONV_GATHER_TAPS 576
#define FG_CONV_MAX_ROWS 16  /* and at most this many filter rows */
void fg_conv2d_pointwise_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                            int8_t *output);
void fg_conv2d_folded_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output);

/* 4-bit weights (fg/support/weights_s4.h): the filter [out_c, filter_h, filter_w, in_c] in the packed rows of fg_dot4_s4,
 * read in place from params->packed (filter is NULL), the bias from params->folded_bias; any geometry (windows of
 * at most FG_CONV_GATHER_TAPS taps gathered on the stack, four channels per pass; larger ones row by row). */
void fg_conv2d_s4(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output);
/* Its Armv7-M variant (windows of at most FG_CONV_GATHER_TAPS taps): params->packed eight channels' channel-pair
 * nibbles per word per tap, after the output stage's constants (fg_s4_rows_armv7m). */
void fg_conv2d_s4_armv7m(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output);

/* The filter rows of output pixel `pixel`'s window for the blocked kernels: pointers into the image where a row lies
 * inside it (and the filter is not dilated along x), else the row gathered into `buffer` (filter_h * blocked.run
 * bytes) with the zero point in the padding. Returns 1 when every row points into the image. */
int fg_conv_window_rows(const fg_conv2d_params *params, const int8_t *input, int32_t pixel, int8_t *buffer,
                        const int8_t *rows[]);

/* A DEPTHWISE_CONV_2D of one input channel is this convolution (filter [1, h, w, m] read as [m, h, w, 1]): its own
 * name, so that a variant of fg_conv2d_folded_s8 that reads the CONV_2D filter layout does not replace it. */
void fg_depthwise_conv2d_one_channel_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                        int8_t *output);

/* The same three with the filter in the wide paired layout (params->blocked.paired, twice the flash of the blocked
 * one; firmware_gen/ops/convolution/wide_layout.py gives it to the layers that gain most per byte while the flash allows):
 * one pixel x eight channels per pass of fg_dot1x8_paired_s8. */
void fg_conv2d_pointwise_paired_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                   int8_t *output);
void fg_conv2d_folded_paired_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                int8_t *output);
void fg_depthwise_conv2d_one_channel_paired_s8(const fg_conv2d_params *params, const int8_t *input,
                                               const int8_t *filter, int8_t *output);

/* The 1x1 convolution on the paired layout with its output stage fused: one pixel x eight channels per pass of the
 * paired loop, each group's sums requantized straight from registers with constants laid out at generation time
 * (firmware_gen/ops/convolution/fused_output.py). params->packed points at one fg_fused_channel per output channel (padded to
 * whole groups of eight). Each call of the paired loop (call_taps taps) starts its 64-bit sums at 2^21, so that the
 * low field is 2^21 + S0 in [0, 2^22) and the high part S1 exactly; the bias is the folded bias less 2^21 per call
 * (mod 2^32) for the even channels. Served: the whole int8 clamp and every channel's shift a right shift in [2, 31]. */
typedef struct {
    int32_t bias;
    fg_fast_channel fast;
} fg_fused_channel;
void fg_conv2d_pointwise_fused_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                  int8_t *output);
/* The same for any window fg_conv2d_folded_s8 serves (rows gathered as it gathers them), one pixel at a time, and
 * its one-input-channel depthwise twin. */
void fg_conv2d_folded_fused_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                               int8_t *output);
/* The same, each pixel's window read as one run of taps (its rows copied side by side, a border pixel's gathered so),
 * where the whole window takes one call of the loop: few input channels and several groups
 * (firmware_gen/ops/convolution/fused_output.py, gathered_pays). */
void fg_conv2d_folded_gathered_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                  int8_t *output);
void fg_depthwise_conv2d_one_channel_fused_s8(const fg_conv2d_params *params, const int8_t *input,
                                              const int8_t *filter, int8_t *output);
/* fg_conv2d_folded_fused_s8 for windows of rows of at most FG_ROW_TAPS taps that take one call of the loop, whole
 * groups of eight outputs, not dilated along x (firmware_gen/ops/convolution/fused_output.py, rows_serve): each row one
 * pass of a sixteen-tap loop entered by a computed jump (fg/support/fused_group.h, fg_fused_row_span), the inside
 * windows read in place, a row's run of them at once. */
void fg_conv2d_folded_rows_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                              int8_t *output);
/* The five above for a layer whose output zero point is -128 and clamp all of int8 (ReLU's): params->packed holds one
 * fg_floor_channel per output channel (fg/support/requantize_fast.h), its start with the bias (less 2^21 per call for
 * the even channels) in it: 6 instructions an output instead of 11. */
void fg_conv2d_pointwise_fused_floor_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                        int8_t *output);
void fg_conv2d_folded_fused_floor_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                     int8_t *output);
void fg_conv2d_folded_gathered_floor_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                        int8_t *output);
void fg_depthwise_conv2d_one_channel_fused_floor_s8(const fg_conv2d_params *params, const int8_t *input,
                                                    const int8_t *filter, int8_t *output);
void fg_conv2d_folded_rows_floor_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                    int8_t *output);

/* fg_conv2d_pointwise_s8 on its compact blocked layout with the output stage fused: two pixels x four channels per
 * pass of the blocked loop (fg/support/blocked_run.h), each channel's two sums requantized from registers with the fast
 * constants (fg/support/requantize_fast.h) derived from the multipliers and the shifts, which the lowering wrote as int8 right
 * shifts in [2, 31] at params->packed (requant.shifts is NULL; firmware_gen/ops/convolution/fused_output.py). Served: the whole
 * int8 clamp, every window in one call of the blocked loop (blocked.call_taps == in_c), out_c a multiple of 4 up to
 * FG_PAIR_MAX_OUT. Pixel 0 of a pair is stored group by group, pixel 1 after pixel 0's last input is read
 * (ops/overlap.py). */
void fg_conv2d_pointwise_blocked_fused_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                          int8_t *output);
/* The same layer (the same parameters and tables) on the paired loop (fg/support/paired_run.h) without the paired weights in
 * flash: per group of eight channels, its compact weights expanded into paired words on the stack a few taps at a
 * time, then run over up to FG_EXPAND_PIXELS pixels, their sums kept meanwhile (firmware_gen/ops/convolution/expanded_layout.py).
 * Served: as above, out_c a multiple of 8. Each group's outputs are stored for all the pass's pixels before the next
 * group reads them: the output must not overlap the input, unless out_c <= FG_EXPAND_BUFFERED_OUT (16), whose outputs
 * wait on the stack until the pass's last input is read (then as fg_conv2d_pointwise_fused_s8, ops/overlap.py). */
void fg_conv2d_pointwise_expanded_fused_s8(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                           int8_t *output);
/* The same loop for a 1x1 convolution (stride 1) with 4-bit weights, from fg_conv2d_s4_armv7m's parameters as they are
 * (params->packed: its layout, every channel's output stage the fast one; in_c < 2048), any out_c. */
void fg_conv2d_pointwise_expanded_fused_s4(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                           int8_t *output);
/* The same for any window with dilation_w 1 whose input rows for one output row fit the kernel's 4 KB slab (a run of
 * filter_w * in_c <= 288 taps and out_w <= 32 unless the whole window is at most 288 taps): a pass's input rows
 * copied with the zero point in the padding, then its windows read from there. */
void fg_conv2d_expanded_fused_s4(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                 int8_t *output);

#endif /* FG_CONV2D_H */
