#include "fg/support/fixedpoint.h"
#include "fg/quantize.h"

void fg_quantize_f32_s16(const fg_quantize_params *params, const float *input, int16_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int16_t)fg_quantize_float(input[i], params->scale, params->output_zero_point, -32768, 32767);
    }
}
