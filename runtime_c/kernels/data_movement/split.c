#include "fg/split.h"

void fg_split_s8(const fg_split_params *params, const int8_t *input, int8_t *const outputs[]) {
    fg_split_outputs(params, sizeof(int8_t), input, (void *const *)(const void *)outputs);
}
