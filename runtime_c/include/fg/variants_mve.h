/* Helium (MVE) variants of the kernels, for Armv8.1-M with MVE (Cortex-M55, M85): each is bit-exact with the
 * portable function it replaces (named in its comment), takes the same params and arguments, and reads its
 * generation-time constants from params->packed (firmware_gen/ops/variants/mve.py documents and builds each
 * layout). On other targets the kernels compile to nothing. */
#ifndef FG_VARIANTS_MVE_H
#define FG_VARIANTS_MVE_H

#include <stdint.h>

#include "fg/add.h"
#include "fg/conv2d.h"
#include "fg/depthwise_conv2d.h"
#include "fg/fully_connected.h"
#include "fg/pooling.h"
#include "fg/support/requantize.h"

/* The arguments of the convolution variants' entry points. */
#define FG_MVE_CONV2D_ARGUMENTS \
    const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output

/* Largest row (input channels of a 1x1 convolution, taps of a convolution window) the convolution variants copy
 * to their stack: mve.py keeps layers above it on the portable kernels. */
#define FG_MVE_ROW_MAX 1152  /* a multiple of 16 */
/* Largest channel count of the depthwise variants (a row of zero points on the stack for the padding). */
#define FG_MVE_DEPTHWISE_MAX 1024

/* out{0,1}[oc] = requantized(sum_{i < depth} x{0,1}[i] * weight[oc][i] + bias[oc]), oc < out_c, for one row
 * (x1 == NULL) or two. `packed` is the GEMM layout: per block of four output channels, 16 int32 words (bias,
 * multiplier, left shift, right shift per channel) then ceil(depth / 16) chunks of 4 rows x 16 weight bytes (zero
 * padded). Two rows are read up to depth rounded up to 16 (the padding weights are zero, whatever the bytes there):
 * the caller copies a row whose end is not that far from the end of its buffer. Each block's outputs are stored
 * once all its reads of x0 and x1 are done. shifts_left: whether any channel's shift is positive
 * (fg_mve_any_left_shift). */
void fg_mve_gemm_s8(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c, const int32_t *packed,
                    const fg_requant_params *requant, int shifts_left, int8_t *out0, int8_t *out1);

/* fg_mve_gemm_s8 or fg_mve_gemm_s4, for the kernels that run either. */
typedef void fg_mve_gemm(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c, const int32_t *packed,
                         const fg_requant_params *requant, int shifts_left, int8_t *out0, int8_t *out1);

/* fg_mve_gemm_s8 for 4-bit weights, against the offset 4-bit GEMM layout: per block of four output channels the 16
 * int32 words, then ceil(depth / 16) chunks of two 16-byte vectors, channels (0, 1) then (2, 3); byte t of a vector
 * holds tap t of the pair's second channel in its high nibble (two's complement) and tap t of its first channel + 8 in
 * its low nibble (zero bytes past the layer). Needs depth < 2^17 (mve_4bit.py). */
void fg_mve_gemm_s4(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c, const int32_t *packed,
                    const fg_requant_params *requant, int shifts_left, int8_t *out0, int8_t *out1);

/* fg_mve_gemm_s8 for 4-bit weights, against the signed 4-bit GEMM layout: per block of four output channels the 16
 * int32 words, the first channel of each pair (0 and 2) scaled by 16 (bias x 16, left shift - 4: VSHL by a negative
 * amount shifts right, exactly, as these sums are multiples of 16), then ceil(depth / 16) chunks of two 16-byte
 * vectors, channels (0, 1) then (2, 3); byte t of a vector holds tap t of the pair's second channel in its high nibble
 * and tap t of its first channel in its low nibble, both two's complement (zero past the layer). Needs 16 x |bias +
 * sum| < 2^31 for every channel (mve_4bit.py). */
void fg_mve_gemm_s4_signed(const int8_t *x0, const int8_t *x1, int32_t depth, int32_t out_c, const int32_t *packed,
                           const fg_requant_params *requant, int shifts_left, int8_t *out0, int8_t *out1);

#if defined(__ARM_FEATURE_MVE)
#include "fg/isa/mve.h"

/* Every full block of four output channels of the two rows st describes (x0, x1, out0, out1, rounds, entry, end;
 * the GEMM layout from packed), in one assembly loop; returns packed past the last block. Kernels that call it for
 * every pair of rows set st up once (fg_mve_gemm_begin) and move only the rows and out0. */
const int32_t *fg_mve_gemm_blocks2(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                   int shifts_left);
/* One row (st: x, its depth a multiple of 16, out, rounds, entry, block_bytes, end) against every pair of full blocks
 * of four output channels from packed, eight channels per pass in one assembly loop; returns packed past the last
 * pair. */
const int32_t *fg_mve_gemm_row8(fg_mve_row_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                int shifts_left);
/* The same against the offset 4-bit GEMM layout (st->row as fg_mve_gemm_row8's, its row terms from the row's sum). */
const int32_t *fg_mve_gemm_row8_s4(fg_mve_row_state_s4 *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                   int shifts_left);
/* A 1x1 convolution's pixels in pairs, `pairs` of them from input (rows of in_c <= 64 taps: up to 32 both read once
 * into vector registers, past that the first, the second read as the dot products go; an output overlapping the input
 * as ops/overlap.py allows changes nothing they read, and nothing is copied), against every block of four output
 * channels (out_c a multiple of four) of the int8 GEMM layout. pairs >= 1: the loop counts a pair down after running
 * it, so 0 would run 2^32 of them. */
void fg_mve_resident_pairs(const int8_t *input, int32_t pairs, int32_t in_c, int32_t out_c, const int32_t *packed,
                           const fg_mve_clamp *clamp, int shifts_left, int8_t *output);
/* The same against the offset 4-bit GEMM layout (the pairs' sums taken as their rows are loaded). */
void fg_mve_resident_pairs_s4(const int8_t *input, int32_t pairs, int32_t in_c, int32_t out_c, const int32_t *packed,
                              const fg_mve_clamp *clamp, int shifts_left, int8_t *output);
/* fg_mve_gemm_blocks2 for st->pairs_after + 1 pairs of rows, each pair st->pair_advance bytes after the one before
 * and its outputs `second` bytes after (out_c a multiple of four: the blocks are all full), in one call. */
void fg_mve_gemm_blocks2_pairs(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                               int shifts_left);
/* A loop over pairs as fg_mve_gemm_blocks2_pairs runs them: it (every loop, chosen at run time), or one of its loops
 * alone, so that a model links only the loops its layers run (ops/variants/mve.py's pairs_loop picks one per layer,
 * the kernels take it as an argument of their entry points); a layer the loop does not fit runs pair by pair through
 * fg_mve_gemm_blocks2 (fg_mve_pairs_by_one). */
typedef void fg_mve_pairs_loop(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                               int shifts_left);
/* fg_mve_gemm_blocks2_pairs's loops one by one: by_one, pair by pair through fg_mve_gemm_blocks2; unpipelined, where
 * a channel shifts left or not every channel shifts right; else by the steps of 16 taps: one, two, three, unrolled
 * (four to eight), nine, spread (ten or more but 18 and 36), eighteen, thirty_six. */
fg_mve_pairs_loop fg_mve_pairs_by_one, fg_mve_pairs_unpipelined, fg_mve_pairs_one, fg_mve_pairs_two,
    fg_mve_pairs_three, fg_mve_pairs_unrolled, fg_mve_pairs_nine, fg_mve_pairs_spread, fg_mve_pairs_eighteen,
    fg_mve_pairs_thirty_six;
/* fg_mve_gemm_blocks2 against the signed 4-bit GEMM layout (its left shifts always apply: from the quant blocks where
 * shifts_left, else the -4 of the first channels of the pairs, the same for every block). */
const int32_t *fg_mve_gemm_blocks2_s4(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                      int shifts_left);
/* fg_mve_gemm_blocks2_pairs's unpipelined loop against the signed 4-bit GEMM layout (out_c a multiple of four). */
fg_mve_pairs_loop fg_mve_pairs_s4;
/* The same against the offset 4-bit GEMM layout; st is the state of a fg_mve_gemm_state_s4 whose row terms hold the
 * rows' sums (fg_mve_set_row_sum). */
const int32_t *fg_mve_gemm_blocks2_s4_offset(fg_mve_gemm_state *st, const int32_t *packed,
                                             const fg_mve_clamp *clamp, int shifts_left);

/* A GEMM layout as the convolution variants run it: its full blocks of two rows through blocks2, the rest through
 * gemm; step_words: int32 words of weights per block and 16 taps; sums: whether blocks2 wants its rows' sums in st
 * (the kernels take them as they copy the rows). */
typedef struct {
    fg_mve_gemm *gemm;
    const int32_t *(*blocks2)(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                              int shifts_left);
    int32_t step_words;
    int sums;
} fg_mve_gemm_layout;
#define FG_MVE_GEMM_S8 ((fg_mve_gemm_layout){fg_mve_gemm_s8, fg_mve_gemm_blocks2, 16, 0})
#define FG_MVE_GEMM_S4 ((fg_mve_gemm_layout){fg_mve_gemm_s4_signed, fg_mve_gemm_blocks2_s4, 8, 0})
#define FG_MVE_GEMM_S4_OFFSET ((fg_mve_gemm_layout){fg_mve_gemm_s4, fg_mve_gemm_blocks2_s4_offset, 8, 1})
#endif

/* fg_conv2d_pointwise_s8, two pixels at a time against the GEMM layout (filter unused, may be NULL). */
void fg_conv2d_pointwise_s8_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                int8_t *output);

/* fg_conv2d_folded_s8: each pair of windows copied to the stack (the padding as the input zero point), then the
 * GEMM layout (filter unused, may be NULL). */
void fg_conv2d_folded_s8_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                             int8_t *output);
/* The same with its pairs through one loop of fg_mve_gemm_blocks2_pairs (fg_mve_pairs_LOOP): a model links only the
 * loops its layers run. */
void fg_conv2d_folded_by_one_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_unpipelined_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_one_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_two_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_three_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_unrolled_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_nine_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_spread_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_eighteen_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_folded_thirty_six_s8_mve(FG_MVE_CONV2D_ARGUMENTS);

/* Largest column band (filter_h x band width x in_c bytes) of fg_conv2d_columns_s8_mve: mve.py keeps larger layers
 * on fg_conv2d_folded_s8_mve. Outputs of a lone last pixel of a row computed as a pair with itself: up to this many
 * channels. */
#define FG_MVE_COLUMN_BAND_MAX 2048
#define FG_MVE_COLUMN_SPARE 256

/* fg_conv2d_folded_s8 without dilation across, row by row from a band of the row's input columns (each column's tap
 * rows one after the other), against the GEMM layout of weights whose window taps run column by column (filter
 * unused, may be NULL). */
void fg_conv2d_columns_s8_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                              int8_t *output);
/* The same with its pairs through one loop of fg_mve_gemm_blocks2_pairs (fg_mve_pairs_LOOP): a model links only the
 * loops its layers run. */
void fg_conv2d_columns_by_one_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_unpipelined_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_one_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_two_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_three_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_unrolled_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_nine_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_spread_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_eighteen_s8_mve(FG_MVE_CONV2D_ARGUMENTS);
void fg_conv2d_columns_thirty_six_s8_mve(FG_MVE_CONV2D_ARGUMENTS);

/* fg_fully_connected_folded_s8 against the GEMM layout (weights unused, may be NULL). */
void fg_fully_connected_folded_s8_mve(const fg_fully_connected_params *params, const int8_t *input,
                                      const int8_t *weights, int8_t *output);

/* fg_conv2d_s4 (4-bit weights): each pair of windows copied to the stack as for fg_conv2d_folded_s8_mve, then the
 * signed 4-bit GEMM layout. */
void fg_conv2d_s4_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter, int8_t *output);

/* fg_conv2d_s4 (4-bit weights) of a 1x1 filter, stride 1: fg_conv2d_pointwise_s8_mve against the signed 4-bit GEMM
 * layout. */
void fg_conv2d_pointwise_s4_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                int8_t *output);

/* fg_conv2d_s4 (4-bit weights) without dilation across, out_c a multiple of four: fg_conv2d_columns_s8_mve's column
 * band, pairs of windows read in place, against the signed or the offset 4-bit GEMM layout (each window's taps column
 * by column). */
void fg_conv2d_columns_s4_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                              int8_t *output);
void fg_conv2d_columns_s4_offset_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                     int8_t *output);
/* fg_conv2d_s4_mve and fg_conv2d_pointwise_s4_mve against the offset 4-bit GEMM layout (long rows). */
void fg_conv2d_s4_offset_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                             int8_t *output);
void fg_conv2d_pointwise_s4_offset_mve(const fg_conv2d_params *params, const int8_t *input, const int8_t *filter,
                                       int8_t *output);

/* fg_fully_connected_s4 (4-bit weights) against the offset 4-bit GEMM layout, batches as
 * fg_fully_connected_folded_s8_mve. */
void fg_fully_connected_s4_mve(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                               int8_t *output);

/* fg_depthwise_conv2d_3x3_s8: four channels per vector, nine taps. packed: per block of four channels, 16 int32
 * words (as the GEMM layout) then the 9 taps x 4 channels, one int32 word each. */
void fg_depthwise_conv2d_3x3_s8_mve(const fg_depthwise_conv2d_params *params, const int8_t *input, int8_t *output);

/* fg_depthwise_conv2d_s4 (4-bit weights) of a 3x3 filter, depth multiplier 1: sixteen channels per vector, int16
 * sums. packed: per group of sixteen channels the taps' nibbles (72 bytes), then four quant blocks (mve_4bit.py). */
void fg_depthwise_conv2d_3x3_s4_mve(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                    const int8_t *filter, int8_t *output);
/* The same through the 3x3 int8 kernel's banded path (a layer with padding, channels a multiple of four, the band of
 * its three tap rows within 4096 bytes), per channel taps 0-7 dotted as int16 (VMLADAVA.S16): fewer channels. */
void fg_depthwise_conv2d_3x3_s4_gathered_mve(const fg_depthwise_conv2d_params *params, const int8_t *input,
                                             const int8_t *filter, int8_t *output);

/* fg_add_s8 for inputs of the output's shape (no broadcasting: a single loop of shape.dims[last] elements). */
void fg_add_s8_mve(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);

/* fg_avg_pool2d_s8 for windows of at most 255 elements: summed eight channels per vector (int16 lanes). */
void fg_avg_pool2d_s8_mve(const fg_pool2d_params *params, const int8_t *input, int8_t *output);

#endif /* FG_VARIANTS_MVE_H */
