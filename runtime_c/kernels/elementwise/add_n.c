#include "fg/add_n.h"

#include "fg/add.h"
#include "fg/support/requantize_fast.h"

/* Every input shares one rescaling, which depends on the int8 value only: above this many elements its 256 values
 * are tabulated once per call (1 KiB on the stack), and the output stage takes the one-SMLAL path when the output
 * shift allows it (fg/support/requantize_fast.h). */
#define FG_ADD_N_TABLE_MIN_ELEMENTS 512

static int32_t rescaled(const fg_add_n_params *p, int32_t value) {
    return fg_add_rescale_input(value, p->input_offset, p->left_shift, p->input_multiplier, p->input_shift);
}

static void add_n_tabulated(const fg_add_n_params *p, const int8_t *const inputs[], int8_t *output) {
    int32_t table[256];
    for (int32_t v = -128; v < 128; ++v) {
        table[v + 128] = rescaled(p, v);
    }
    const int32_t *const scaled = table + 128;
    const uint32_t start = (uint32_t)rescaled(p, 0);
    fg_fast_channel stage = {0, 0, 0};
    const int fast = fg_fast_channel_of(p->output_multiplier, p->output_shift, &stage);
    const int32_t offset = p->output_offset, low = p->activation_min, high = p->activation_max;
    const int32_t num_inputs = p->num_inputs;
    for (int32_t i = 0; i < p->num_elements; ++i) {
        uint32_t sum = start; /* wraps like TFLM's int32 sum of many inputs, without signed overflow */
        for (int32_t j = 0; j < num_inputs; ++j) {
            sum += (uint32_t)scaled[inputs[j][i]];
        }
        const int32_t result = fast ? fg_fast_output(sum, &stage, offset)
                                    : fg_multiply_by_quantized_multiplier_smaller_than_one_exp(
                                          (int32_t)sum, p->output_multiplier, p->output_shift) + offset;
        output[i] = (int8_t)fg_clamp_i32(result, low, high);
    }
}

void fg_add_n_s8(const fg_add_n_params *params, const int8_t *const inputs[], int8_t *output) {
    const fg_add_n_params *p = params;
    if (p->num_elements >= FG_ADD_N_TABLE_MIN_ELEMENTS) {
        add_n_tabulated(p, inputs, output);
        return;
    }
    const int32_t start = rescaled(p, 0);
    for (int32_t i = 0; i < p->num_elements; ++i) {
        uint32_t sum = (uint32_t)start;
        for (int32_t j = 0; j < p->num_inputs; ++j) {
            sum += (uint32_t)rescaled(p, inputs[j][i]);
        }
        const int32_t scaled = fg_multiply_by_quantized_multiplier_smaller_than_one_exp(
            (int32_t)sum, p->output_multiplier, p->output_shift);
        output[i] = (int8_t)fg_clamp_i32(scaled + p->output_offset, p->activation_min, p->activation_max);
    }
}
