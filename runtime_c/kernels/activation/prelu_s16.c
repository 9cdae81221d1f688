#include "fg/support/fixedpoint.h"
#include "fg/prelu.h"

static void prelu_row_s16(const void *params, const void *input_bytes, int32_t input_step, const void *alpha_bytes,
                          int32_t alpha_step, void *output, int32_t n) {
    const fg_prelu_params p = *(const fg_prelu_params *)params;
    const int16_t *input = (const int16_t *)input_bytes, *alpha = (const int16_t *)alpha_bytes;
    int16_t *out = (int16_t *)output;
    for (int16_t *const end = out + n; out < end; input += input_step, alpha += alpha_step) {
        *out++ = fg_saturate_s16(fg_prelu_value(&p, *input + p.input_offset, *alpha));
    }
}

void fg_prelu_s16(const fg_prelu_s16_params *params, const int16_t *input, int16_t *output) {
    fg_broadcast_binary(&params->prelu.shape, sizeof(int16_t), &params->prelu, input, params->alpha, output,
                        prelu_row_s16);
}
