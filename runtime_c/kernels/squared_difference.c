#include "fg/squared_difference.h"

typedef struct {
    fg_add_inputs inputs;
    const fg_add_params *params;
} squared_difference_context;

static inline int32_t squared_difference_element(const void *context, int32_t value1, int32_t value2) {
    const squared_difference_context *c = (const squared_difference_context *)context;
    const fg_add_params *p = c->params;
    const fg_add_pair pair = fg_add_rescale_pair(&c->inputs, value1, value2);
    const int32_t difference = pair.first - pair.second;
    const int32_t square = fg_multiply_by_quantized_multiplier(difference * difference, p->output_multiplier,
                                                               p->output_shift);
    return fg_clamp_i32(square + p->output_offset, p->activation_min, p->activation_max);
}

FG_BINARY_ROW(squared_difference_row, int8_t, squared_difference_element)

void fg_squared_difference_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2,
                              int8_t *output) {
    const squared_difference_context context = {fg_add_inputs_of(params), params};
    fg_broadcast_binary(&params->shape, sizeof(int8_t), &context, input1, input2, output, squared_difference_row);
}
