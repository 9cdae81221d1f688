#include "fg/mul.h"

FG_BINARY_ROW(mul_row, int8_t, fg_mul_element)

void fg_mul_s8(const fg_mul_params *params, const int8_t *input1, const int8_t *input2, int8_t *output) {
    fg_broadcast_binary(&params->shape, sizeof(int8_t), params, input1, input2, output, mul_row);
}
