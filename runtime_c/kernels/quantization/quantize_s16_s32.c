#include "fg/support/fixedpoint.h"
#include "fg/quantize.h"

void fg_quantize_s16_s32(const fg_quantize_params *params, const int16_t *input, int32_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = fg_requantize_value(params, input[i]);
    }
}
