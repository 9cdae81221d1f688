/* ADD on int8 tensors with broadcasting (TFLite reference semantics). */
#ifndef FG_ADD_H
#define FG_ADD_H

#include <stdint.h>

#include "fg/broadcast.h"
#include "fg/fixedpoint.h"

/* Both inputs are rescaled to a common scale with 20 bits of headroom (left_shift), summed, then
 * rescaled to the output. Shifts are exponents <= 0 (right shifts). */
typedef struct {
    fg_broadcast_shape shape;
    int32_t input1_offset;  /* -zero_point */
    int32_t input1_multiplier;
    int32_t input1_shift;
    int32_t input2_offset;
    int32_t input2_multiplier;
    int32_t input2_shift;
    int32_t left_shift;
    int32_t output_offset;  /* +zero_point */
    int32_t output_multiplier;
    int32_t output_shift;
    int32_t activation_min, activation_max;
} fg_add_params;

/* One input brought to the common scale: (value + offset) * 2^left_shift * multiplier * 2^shift (shift <= 0);
 * ADD, SUB, SQUARED_DIFFERENCE and ADD_N share it. */
static inline int32_t fg_add_rescale_input(int32_t value, int32_t offset, int32_t left_shift, int32_t multiplier,
                                           int32_t shift) {
    return fg_multiply_by_quantized_multiplier_smaller_than_one_exp((value + offset) * (1 << left_shift),
                                                                    multiplier, shift);
}

void fg_add_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);

#endif /* FG_ADD_H */
