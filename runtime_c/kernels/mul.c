#include "fg/fixedpoint.h"
#include "fg/mul.h"

static void mul_row(const void *params, const int8_t *in1, int32_t step1, const int8_t *in2, int32_t step2,
                    int8_t *out, int32_t n) {
    const fg_mul_params *p = (const fg_mul_params *)params;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t product = (in1[i * step1] + p->input1_offset) * (in2[i * step2] + p->input2_offset);
        const int32_t scaled = fg_multiply_by_quantized_multiplier(product, p->output_multiplier, p->output_shift);
        out[i] = (int8_t)fg_clamp_i32(scaled + p->output_offset, p->activation_min, p->activation_max);
    }
}

void fg_mul_s8(const fg_mul_params *params, const int8_t *input1, const int8_t *input2, int8_t *output) {
    fg_broadcast_binary_s8(&params->shape, params, input1, input2, output, mul_row);
}
