#include "fg/split.h"

void fg_split_f32(const fg_split_params *params, const float *input, float *const outputs[]) {
    int32_t offset = 0;
    for (int32_t k = 0; k < params->num_outputs; ++k) {
        fg_split_chunk(params, k, offset, sizeof(float), input, outputs[k]);
        offset += params->chunk_sizes[k];
    }
}
