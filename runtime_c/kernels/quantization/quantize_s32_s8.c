#include "fg/support/fixedpoint.h"
#include "fg/quantize.h"

void fg_quantize_s32_s8(const fg_quantize_params *params, const int32_t *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = fg_saturate_s8(fg_requantize_value(params, input[i]));
    }
}
