#include "fg/neg.h"

void fg_neg_f32(const fg_neg_params *params, const float *input, float *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = -input[i];
    }
}
