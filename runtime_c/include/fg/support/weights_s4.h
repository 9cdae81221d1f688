/* 4-bit weights as TFLite packs them: two's-complement nibbles, element k of the flattened tensor in the low nibble
 * of byte k / 2 when k is even, in the high nibble when it is odd. The kernels read them in place (from flash), two
 * taps per byte load, unpacked in registers: the low nibble by shifting it to the top of a byte and back, the high
 * one by an arithmetic shift of the sign-extended byte. Sums are modulo 2^32, as the int8 kernels' accumulators. */
#ifndef FG_WEIGHTS_S4_H
#define FG_WEIGHTS_S4_H

#include <stdint.h>

#include "fg/support/requantize.h"

/* The two taps of one packed byte (read as int8), sign-extended. */
static inline int32_t fg_low_s4(int32_t byte) {
    return (int32_t)(int8_t)(uint8_t)((uint32_t)byte << 4) >> 4;
}

static inline int32_t fg_high_s4(int32_t byte) {
    return byte >> 4;
}

/* Element k. */
static inline int32_t fg_nibble_s4(const uint8_t *w, int32_t k) {
    const int32_t byte = (int8_t)w[k >> 1];
    return (k & 1) ? fg_high_s4(byte) : fg_low_s4(byte);
}

/* The rows of a 4-bit filter as the fast loops read them: output channel c's taps from byte c * row_bytes on,
 * row_bytes = ceil(taps / 2) (TFLite's own packing when taps is even; with an odd count each row ends in a zero
 * nibble, written at generation time). acc[j] += sum_{i < n} x[i] * w_j(i) for j < 4, w_j the row at rows[j]
 * (rows may repeat): the inputs loaded once for four channels. Vector paths: SMLAD (DSP) and VMLADAVA (MVE), chosen
 * by the compiler's target. */
void fg_dot4_s4(const int8_t *x, const int8_t *const rows[4], int32_t n, uint32_t acc[4]);

/* sum_{i < n} x[i] * w(start + i). */
uint32_t fg_dot_s4(const int8_t *x, const uint8_t *w, int32_t start, int32_t n);

/* scale * sum_{i < n} w(start + i): the share of taps that read the input zero point (the padding). */
uint32_t fg_scaled_sum_s4(int32_t scale, const uint8_t *w, int32_t start, int32_t n);

/* The packed rows of four output channels, channels chunk + k .. chunk + k + 3 of a chunk of count (past the chunk's
 * last channel, the group's first row again), and their accumulators acc[k .. k + 3] started at the folded bias. */
static inline void fg_s4_rows4(const int8_t *weights, int32_t row_bytes, const int32_t *folded_bias, int32_t chunk,
                               int32_t k, int32_t count, const int8_t *rows[4], uint32_t *acc) {
    for (int32_t j = 0; j < 4; ++j) {
        const int32_t channel = chunk + (k + j < count ? k + j : k);
        rows[j] = weights + channel * row_bytes;
        acc[k + j] = (uint32_t)folded_bias[channel];
    }
}

/* The outputs of one window (a pixel's taps, or a fully-connected row) of `taps` inputs at x (taps <=
 * FG_S4_ARMV7M_MAX_TAPS), for out_c channels in groups of eight: packed is a word (1: every channel's output stage
 * is fg_fast_output's), the fg_fast_channel of every channel (of the layer if per tensor), then [groups][taps]
 * words, byte j of a word channel pair (2j, 2j + 1) as pair_4bit.pack_channel_pairs writes it (the Armv7-M
 * variants' layout, kernels/support/gemm_s4_armv7m.c); output[c] = requantized(bias[c] + the dot product of x and
 * channel c). */
#define FG_S4_ARMV7M_MAX_TAPS 65536
void fg_s4_window_armv7m(const int8_t *x, int32_t taps, const void *packed, int32_t out_c, const int32_t *bias,
                         const fg_requant_params *q, int8_t *output);

/* The same for a window of `count` runs of `run` taps, run r at rows[r] (count * run <= FG_S4_ARMV7M_MAX_TAPS), sum_x
 * the sum of its taps. */
void fg_s4_rows_armv7m(const int8_t *const rows[], int32_t count, int32_t run, int32_t sum_x, const void *packed,
                       int32_t out_c, const int32_t *bias, const fg_requant_params *q, int8_t *output);

/* sum_{i < n} x[i]. */
int32_t fg_s4_sum_armv7m(const int8_t *x, int32_t n);

#endif /* FG_WEIGHTS_S4_H */
