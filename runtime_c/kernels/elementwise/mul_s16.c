#include "fg/mul.h"

FG_BINARY_ROW(mul_row, int16_t, fg_mul_element)

void fg_mul_s16(const fg_mul_params *params, const int16_t *input1, const int16_t *input2, int16_t *output) {
    fg_broadcast_binary(&params->shape, sizeof(int16_t), params, input1, input2, output, mul_row);
}
