#include "fg/sub.h"

#include "fg/add_tabulated.h"

static void sub_row(const void *params, const int8_t *in1, int32_t step1, const int8_t *in2, int32_t step2,
                    int8_t *out, int32_t n) {
    const fg_add_params *p = (const fg_add_params *)params;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t a = fg_add_rescale_input(in1[i * step1], p->input1_offset, p->left_shift,
                                               p->input1_multiplier, p->input1_shift);
        const int32_t b = fg_add_rescale_input(in2[i * step2], p->input2_offset, p->left_shift,
                                               p->input2_multiplier, p->input2_shift);
        const int32_t difference = fg_multiply_by_quantized_multiplier_smaller_than_one_exp(
            a - b, p->output_multiplier, p->output_shift);
        out[i] = (int8_t)fg_clamp_i32(difference + p->output_offset, p->activation_min, p->activation_max);
    }
}

void fg_sub_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output) {
    if (!fg_add_tabulated_s8(params, -1, input1, input2, output)) {
        fg_broadcast_binary_s8(&params->shape, params, input1, input2, output, sub_row);
    }
}
