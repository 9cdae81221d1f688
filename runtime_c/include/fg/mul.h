/* MUL on int8 or int16 tensors with broadcasting (TFLite reference semantics). */
#ifndef FG_MUL_H
#define FG_MUL_H

#include <stdint.h>

#include "fg/support/broadcast.h"
#include "fg/support/fixedpoint.h"

/* out = output_offset + (in1 + input1_offset) * (in2 + input2_offset) * multiplier * 2^(shift - 31), clamped. */
typedef struct {
    fg_broadcast_shape shape;
    int32_t input1_offset;  /* -zero_point */
    int32_t input2_offset;
    int32_t output_offset;  /* +zero_point */
    int32_t output_multiplier;
    int32_t output_shift;  /* > 0: left shift */
    int32_t activation_min, activation_max;
} fg_mul_params;

/* One output of MUL (params: fg_mul_params); an int16 product fits in int32 (at most 2^30). */
static inline int32_t fg_mul_element(const void *params, int32_t value1, int32_t value2) {
    const fg_mul_params *p = (const fg_mul_params *)params;
    const int32_t product = (value1 + p->input1_offset) * (value2 + p->input2_offset);
    const int32_t scaled = fg_multiply_by_quantized_multiplier(product, p->output_multiplier, p->output_shift);
    return fg_clamp_i32(scaled + p->output_offset, p->activation_min, p->activation_max);
}

void fg_mul_s8(const fg_mul_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);
void fg_mul_s16(const fg_mul_params *params, const int16_t *input1, const int16_t *input2, int16_t *output);

#endif /* FG_MUL_H */
