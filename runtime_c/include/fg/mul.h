/* MUL on int8 tensors with broadcasting (TFLite reference semantics). */
#ifndef FG_MUL_H
#define FG_MUL_H

#include <stdint.h>

#include "fg/broadcast.h"

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

void fg_mul_s8(const fg_mul_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);

#endif /* FG_MUL_H */
