#include "fg/fixedpoint.h"
#include "fg/prelu.h"

static inline int32_t prelu_element(const void *params, int32_t input, int32_t alpha) {
    const fg_prelu_params *p = (const fg_prelu_params *)params;
    const int32_t x = input + p->input_offset;
    const int32_t scaled =
        x >= 0 ? fg_multiply_by_quantized_multiplier(x, p->identity_multiplier, p->identity_shift)
               : fg_multiply_by_quantized_multiplier(x * (alpha + p->alpha_offset), p->alpha_multiplier,
                                                     p->alpha_shift);
    return fg_saturate_s8(scaled + p->output_offset);
}

FG_BINARY_ROW(prelu_row, int8_t, prelu_element)

void fg_prelu_s8(const fg_prelu_params *params, const int8_t *input, const int8_t *alpha, int8_t *output) {
    fg_broadcast_binary(&params->shape, sizeof(int8_t), params, input, alpha, output, prelu_row);
}
