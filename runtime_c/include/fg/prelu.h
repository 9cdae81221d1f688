/* PRELU on int8 tensors, or int16 ones with an int8 alpha (16x8): x >= 0 ? x : alpha * x, alpha broadcast against
 * the input (TFLite reference semantics). */
#ifndef FG_PRELU_H
#define FG_PRELU_H

#include <stdint.h>

#include "fg/support/broadcast.h"
#include "fg/support/fixedpoint.h"

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

typedef struct {
    fg_prelu_params prelu;
    const int16_t *alpha; /* the int8 alpha widened at generation time, so that both operands step alike */
} fg_prelu_s16_params;

/* output may be input (in place) when they have the same shape. */
void fg_prelu_s8(const fg_prelu_params *params, const int8_t *input, const int8_t *alpha, int8_t *output);
void fg_prelu_s16(const fg_prelu_s16_params *params, const int16_t *input, int16_t *output);

/* One output before the output type's clamp; x is the input plus its offset. */
static inline int32_t fg_prelu_value(const fg_prelu_params *p, int32_t x, int32_t alpha) {
    return p->output_offset +
           (x >= 0 ? fg_multiply_by_quantized_multiplier(x, p->identity_multiplier, p->identity_shift)
                   : fg_multiply_by_quantized_multiplier(x * (alpha + p->alpha_offset), p->alpha_multiplier,
                                                         p->alpha_shift));
}

#endif /* FG_PRELU_H */
