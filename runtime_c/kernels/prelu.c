#include "fg/fixedpoint.h"
#include "fg/prelu.h"

static void prelu_row(const void *params, const int8_t *input, int32_t input_step, const int8_t *alpha,
                      int32_t alpha_step, int8_t *out, int32_t n) {
    const fg_prelu_params *p = (const fg_prelu_params *)params;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t x = input[i * input_step] + p->input_offset;
        const int32_t scaled =
            x >= 0 ? fg_multiply_by_quantized_multiplier(x, p->identity_multiplier, p->identity_shift)
                   : fg_multiply_by_quantized_multiplier(x * (alpha[i * alpha_step] + p->alpha_offset),
                                                         p->alpha_multiplier, p->alpha_shift);
        out[i] = fg_saturate_s8(scaled + p->output_offset);
    }
}

void fg_prelu_s8(const fg_prelu_params *params, const int8_t *input, const int8_t *alpha, int8_t *output) {
    fg_broadcast_binary_s8(&params->shape, params, input, alpha, output, prelu_row);
}
