#include "fg/add_n.h"

#include "fg/add.h"

void fg_add_n_s8(const fg_add_n_params *params, const int8_t *const inputs[], int8_t *output) {
    const fg_add_n_params *p = params;
    const int32_t start = fg_add_rescale_input(0, p->input_offset, p->left_shift, p->input_multiplier,
                                               p->input_shift);
    for (int32_t i = 0; i < p->num_elements; ++i) {
        uint32_t sum = (uint32_t)start; /* wraps like TFLM's int32 sum of many inputs, without signed overflow */
        for (int32_t j = 0; j < p->num_inputs; ++j) {
            sum += (uint32_t)fg_add_rescale_input(inputs[j][i], p->input_offset, p->left_shift,
                                                  p->input_multiplier, p->input_shift);
        }
        const int32_t scaled = fg_multiply_by_quantized_multiplier_smaller_than_one_exp(
            (int32_t)sum, p->output_multiplier, p->output_shift);
        output[i] = (int8_t)fg_clamp_i32(scaled + p->output_offset, p->activation_min, p->activation_max);
    }
}
