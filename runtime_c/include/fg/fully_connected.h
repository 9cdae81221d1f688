/* FULLY_CONNECTED on int8 tensors with int8 weights (TFLite Micro reference semantics). */
#ifndef FG_FULLY_CONNECTED_H
#define FG_FULLY_CONNECTED_H

#include <stdint.h>

#include "fg/support/dot_s8.h"
#include "fg/support/requantize.h"

typedef struct {
    int32_t batches;      /* the input read as [batches, accum_depth] */
    int32_t accum_depth;
    int32_t out_depth;
    fg_requant_params requant;
    /* The folded variant only: bias + input_offset * (sum of the output's weights), computed at generation time. */
    const int32_t *folded_bias;
    /* The folded variant only: the weights in the register-blocked layout of fg/support/dot_s8.h (one row of accum_depth
     * taps), written at generation time; it takes no weights argument. */
    fg_blocked_filter blocked;
    /* With one batch (no second row to pair with) the weights instead as int32 words, two output channels per word
     * (w[c] + w[c + 1] * 2^22), [groups of 4 channels][accum_depth][2 words]; blocked.weights is then NULL. */
    const int32_t *paired_weights;
    /* An ISA variant only (firmware_gen/ops/variants): its constants laid out at generation time for its inner
     * loop (weights reordered, per-layer constants), in the layout that variant documents. */
    const void *packed;
    /* The 16x8 kernels only (fg/support/requantize.h). */
    fg_wide_bias wide;
    /* 16x8 with constant weights: the groups of FG_S16_GROUP output channels interleaved ([group][accum_depth][8]),
     * then the other out_depth % 8 rows as they are; the kernel then takes no weights argument (NULL). */
    const int8_t *interleaved;
} fg_fully_connected_params;

/* 16x8: int16 input and output (zero point 0), int8 weights [out_depth, accum_depth] (or params->interleaved), the
 * bias in params->wide. */
void fg_fully_connected_s16(const fg_fully_connected_params *params, const int16_t *input, const int8_t *weights,
                            int16_t *output);

/* 4-bit weights (fg/support/weights_s4.h): [out_depth, accum_depth] in the packed rows of fg_dot4_s4, read in place from
 * params->packed (weights is NULL), the bias from params->folded_bias. */
void fg_fully_connected_s4(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                           int8_t *output);
/* Its Armv7-M variant (accum_depth at most FG_S4_ARMV7M_MAX_TAPS): params->packed eight channels' channel-pair
 * nibbles per word per tap, after the output stage's constants (fg_s4_window_armv7m). */
void fg_fully_connected_s4_armv7m(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                                  int8_t *output);

/* weights are [out_depth, accum_depth]; bias is [out_depth] or NULL; output is [batches, out_depth]. */
void fg_fully_connected_s8(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                           const int32_t *bias, int8_t *output);

/* Bit-exact with fg_fully_connected_s8, the bias taken from params->folded_bias, the weights from params->blocked
 * (weights is NULL). */
void fg_fully_connected_folded_s8(const fg_fully_connected_params *params, const int8_t *input,
                                  const int8_t *weights, int8_t *output);

#endif /* FG_FULLY_CONNECTED_H */
