#include "fg/add.h"

FG_BINARY_ROW(add_row, int16_t, fg_add_element)

void fg_add_s16(const fg_add_params *params, const int16_t *input1, const int16_t *input2, int16_t *output) {
    const fg_add_stages stages = fg_add_stages_of(params);
    fg_broadcast_binary(&params->shape, sizeof(int16_t), &stages, input1, input2, output, add_row);
}
