/* ADD_N on int8 tensors of one shape and one quantization (TFLite reference semantics). */
#ifndef FG_ADD_N_H
#define FG_ADD_N_H

#include <stdint.h>

typedef struct {
    int32_t num_inputs;
    int32_t num_elements;
    int32_t input_offset; /* -zero_point, shared by every input */
    int32_t input_multiplier;
    int32_t input_shift;
    int32_t left_shift;
    int32_t output_offset; /* +zero_point */
    int32_t output_multiplier;
    int32_t output_shift;
    int32_t activation_min, activation_max;
} fg_add_n_params;

/* Each input is rescaled as ADD rescales its inputs and the terms are summed. As TFLM's reference AddN, the sum
 * starts from the rescaled value of the raw byte 0 (not from zero), then is rescaled to the output once. */
void fg_add_n_s8(const fg_add_n_params *params, const int8_t *const inputs[], int8_t *output);

#endif /* FG_ADD_N_H */
