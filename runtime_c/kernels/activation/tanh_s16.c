/* TANH int16 -> int16: the sigmoid table shared with the LSTM's gates (fg/support/int16_activations.h). */
#include "fg/activations_s16.h"

#include "fg/support/int16_activations.h"

void fg_tanh_s16(const fg_sigmoid_s16_params *params, const int16_t *input, int16_t *output) {
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = fg_tanh_s16_value(input[i], params->input_multiplier, params->input_right_shift);
    }
}
