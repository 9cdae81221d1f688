#include "fg/squared_difference.h"

FG_BINARY_ROW(squared_difference_row, int8_t, fg_squared_difference_element)

void fg_squared_difference_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2,
                              int8_t *output) {
    const fg_squared_difference_context context = {fg_add_inputs_of(params), params};
    fg_broadcast_binary(&params->shape, sizeof(int8_t), &context, input1, input2, output, squared_difference_row);
}
