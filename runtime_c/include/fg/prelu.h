/* PRELU on int8 tensors: x >= 0 ? x : alpha * x, alpha broadcast against the input (TFLite reference semantics). */
#ifndef FG_PRELU_H
#define FG_PRELU_H

#include <stdint.h>

#include "fg/support/broadcast.h"

/* x = input + input_offset; out = output_offset + (x >= 0 ? x * m1 * 2^(s1 - 31)
 *                                                          : x * (alpha + alpha_offset) * m2 * 2^(s2 - 31)), clamped. */
typedef struct {
    fg_broadcast_shape shape; /* input 1: the input, input 2: alpha */
    int32_t input_offset;     /* -zero_point */
    int32_t alpha_offset;     /* -zero_point */
    int32_t output_offset;    /* +zero_point */
    int32_t identity_multiplier;
    int32_t identity_shift; /* > 0: left shift */
    int32_t alpha_multiplier;
    int32_t alpha_shift;
} fg_prelu_params;

/* output may be input (in place) when they have the same shape. */
void fg_prelu_s8(const fg_prelu_params *params, const int8_t *input, const int8_t *alpha, int8_t *output);

#endif /* FG_PRELU_H */
