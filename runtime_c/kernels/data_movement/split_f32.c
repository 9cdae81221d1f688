#include "fg/split.h"

void fg_split_f32(const fg_split_params *params, const float *input, float *const outputs[]) {
    fg_split_outputs(params, sizeof(float), input, (void *const *)(const void *)outputs);
}
