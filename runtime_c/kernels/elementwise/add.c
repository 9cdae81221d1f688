#include "fg/add.h"
#include "fg/support/add_tabulated.h"

FG_BINARY_ROW(add_row, int8_t, fg_add_element)

void fg_add_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output) {
    if (!fg_add_tabulated_s8(params, 1, input1, input2, output)) {
        const fg_add_stages stages = fg_add_stages_of(params);
        fg_broadcast_binary(&params->shape, sizeof(int8_t), &stages, input1, input2, output, add_row);
    }
}
