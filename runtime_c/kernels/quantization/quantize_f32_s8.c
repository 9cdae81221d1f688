#include "fg/quantize.h"

#include "fg/support/fixedpoint.h"

void fg_quantize_f32_s8(const fg_quantize_params *params, const float *input, int8_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int8_t)fg_quantize_float(input[i], params->scale, params->output_zero_point, -128, 127);
    }
}
