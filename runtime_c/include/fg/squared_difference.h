/* SQUARED_DIFFERENCE on int8 or int16 tensors with broadcasting (TFLite reference semantics). The parameters are
 * ADD's with 7 bits of headroom for int8 (so that the square of a 255 << 7 difference fits in int32), none for int16
 * (zero points 0: the rescaled inputs are at most 2^14 in magnitude), and an output multiplier that may be above one
 * (output_shift > 0: left shift). */
#ifndef FG_SQUARED_DIFFERENCE_H
#define FG_SQUARED_DIFFERENCE_H

#include <stdint.h>

#include "fg/add.h"

void fg_squared_difference_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2,
                              int8_t *output);
void fg_squared_difference_s16(const fg_add_params *params, const int16_t *input1, const int16_t *input2,
                               int16_t *output);

typedef struct {
    fg_add_inputs inputs;
    const fg_add_params *params;
} fg_squared_difference_context;

/* One output of either size (context: fg_squared_difference_context), the element function of its rows. */
static inline int32_t fg_squared_difference_element(const void *context, int32_t value1, int32_t value2) {
    const fg_squared_difference_context *c = (const fg_squared_difference_context *)context;
    const fg_add_params *p = c->params;
    const fg_add_pair pair = fg_add_rescale_pair(&c->inputs, value1, value2);
    const int32_t difference = pair.first - pair.second;
    const int32_t square = fg_multiply_by_quantized_multiplier(difference * difference, p->output_multiplier,
                                                               p->output_shift);
    return fg_clamp_i32(square + p->output_offset, p->activation_min, p->activation_max);
}

#endif /* FG_SQUARED_DIFFERENCE_H */
