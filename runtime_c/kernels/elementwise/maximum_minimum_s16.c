#include "fg/maximum_minimum.h"

FG_BINARY_ROW(maximum_minimum_row, int16_t, fg_maximum_minimum_element)

void fg_maximum_minimum_s16(const fg_maximum_minimum_params *params, const int16_t *input1, const int16_t *input2,
                            int16_t *output) {
    fg_broadcast_binary(&params->shape, sizeof(int16_t), params, input1, input2, output, maximum_minimum_row);
}
