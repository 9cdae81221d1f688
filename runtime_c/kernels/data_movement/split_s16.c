#include "fg/split.h"

void fg_split_s16(const fg_split_params *params, const int16_t *input, int16_t *const outputs[]) {
    fg_split_outputs(params, sizeof(int16_t), input, (void *const *)(const void *)outputs);
}
