#include "fg/maximum_minimum.h"

static inline int32_t maximum_minimum_element(const void *params, int32_t a, int32_t b) {
    const int32_t flip = ((const fg_maximum_minimum_params *)params)->flip;
    return (a ^ flip) > (b ^ flip) ? a : b;
}

FG_BINARY_ROW(maximum_minimum_row, int8_t, maximum_minimum_element)

void fg_maximum_minimum_s8(const fg_maximum_minimum_params *params, const int8_t *input1, const int8_t *input2,
                           int8_t *output) {
    fg_broadcast_binary(&params->shape, sizeof(int8_t), params, input1, input2, output, maximum_minimum_row);
}
