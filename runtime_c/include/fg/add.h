/* ADD on int8 or int16 tensors with broadcasting (TFLite reference semantics; for int16 TFLM's general path, not
 * TFLite's power-of-two one). */
#ifndef FG_ADD_H
#define FG_ADD_H

#include <stdint.h>

#include "fg/broadcast.h"
#include "fg/fixedpoint.h"

/* Both inputs are rescaled to a common scale with 20 bits of headroom (left_shift; 15 for int16), summed, then
 * rescaled to the output. Shifts are exponents <= 0 (right shifts). */
typedef struct {
    fg_broadcast_shape shape;
    int32_t input1_offset;  /* -zero_point */
    int32_t input1_multiplier;
    int32_t input1_shift;
    int32_t input2_offset;
    int32_t input2_multiplier;
    int32_t input2_shift;
    int32_t left_shift;
    int32_t output_offset;  /* +zero_point */
    int32_t output_multiplier;
    int32_t output_shift;
    int32_t activation_min, activation_max;
} fg_add_params;

/* One input brought to the common scale: (value + offset) * 2^left_shift * multiplier * 2^shift (shift <= 0);
 * ADD, SUB, SQUARED_DIFFERENCE and ADD_N share it. */
static inline int32_t fg_add_rescale_input(int32_t value, int32_t offset, int32_t left_shift, int32_t multiplier,
                                           int32_t shift) {
    return fg_multiply_by_quantized_multiplier_smaller_than_one_exp((value + offset) * (1 << left_shift),
                                                                    multiplier, shift);
}

/* Both inputs brought to the common scale: ADD, SUB and SQUARED_DIFFERENCE, int8 and int16. */
typedef struct {
    int32_t first, second;
} fg_add_pair;

static inline fg_add_pair fg_add_rescale_pair(const fg_add_params *p, int32_t value1, int32_t value2) {
    const fg_add_pair pair = {
        fg_add_rescale_input(value1, p->input1_offset, p->left_shift, p->input1_multiplier, p->input1_shift),
        fg_add_rescale_input(value2, p->input2_offset, p->left_shift, p->input2_multiplier, p->input2_shift)};
    return pair;
}

/* A sum or difference at the common scale brought to the output, offset and clamped (ADD, SUB). */
static inline int32_t fg_add_output(const fg_add_params *p, int32_t raw) {
    const int32_t scaled = fg_multiply_by_quantized_multiplier_smaller_than_one_exp(raw, p->output_multiplier,
                                                                                    p->output_shift);
    return fg_clamp_i32(scaled + p->output_offset, p->activation_min, p->activation_max);
}

/* One output of ADD (params: fg_add_params), the element function of its rows (fg/broadcast.h). */
static inline int32_t fg_add_element(const void *params, int32_t value1, int32_t value2) {
    const fg_add_params *p = (const fg_add_params *)params;
    const fg_add_pair pair = fg_add_rescale_pair(p, value1, value2);
    return fg_add_output(p, pair.first + pair.second);
}

void fg_add_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);
void fg_add_s16(const fg_add_params *params, const int16_t *input1, const int16_t *input2, int16_t *output);

#endif /* FG_ADD_H */
