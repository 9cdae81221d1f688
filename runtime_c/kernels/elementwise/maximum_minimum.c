#include "fg/maximum_minimum.h"

FG_BINARY_ROW(maximum_minimum_row, int8_t, fg_maximum_minimum_element)

void fg_maximum_minimum_s8(const fg_maximum_minimum_params *params, const int8_t *input1, const int8_t *input2,
                           int8_t *output) {
    fg_broadcast_binary(&params->shape, sizeof(int8_t), params, input1, input2, output, maximum_minimum_row);
}
