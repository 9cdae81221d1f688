/* ADD on int8 or int16 tensors with broadcasting (TFLite reference semantics; for int16 TFLM's general path, not
 * TFLite's power-of-two one). */
#ifndef FG_ADD_H
#define FG_ADD_H

#include <stdint.h>

#include "fg/support/broadcast.h"
#include "fg/support/fixedpoint.h"
#include "fg/support/single_rounding.h"

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

/* Both inputs brought to the common scale (ADD, SUB and SQUARED_DIFFERENCE, int8 and int16), each rescale a single
 * 64-bit rounding set up once per call (fg/support/single_rounding.h, exact for -2^30 <= acc < 2^30: a shifted input is
 * within [-2^30, 2^30) for int8 (|value + offset| <= 255, 2^20) and zero-point-0 int16 (2^15); a rescaled one is
 * within half of it, so a sum or difference of two stays within the output stage's range too). */
typedef struct {
    fg_single_rounding input1, input2;
    int32_t input1_offset, input2_offset, left_shift;
} fg_add_inputs;

typedef struct {
    int32_t first, second;
} fg_add_pair;

static inline fg_add_inputs fg_add_inputs_of(const fg_add_params *p) {
    fg_add_inputs in;
    in.input1 = fg_single_rounding_of(p->input1_multiplier, p->input1_shift);
    in.input2 = fg_single_rounding_of(p->input2_multiplier, p->input2_shift);
    in.input1_offset = p->input1_offset;
    in.input2_offset = p->input2_offset;
    in.left_shift = p->left_shift;
    return in;
}

static inline fg_add_pair fg_add_rescale_pair(const fg_add_inputs *in, int32_t value1, int32_t value2) {
    const fg_add_pair pair = {
        fg_single_rounding_apply((value1 + in->input1_offset) * (1 << in->left_shift), &in->input1),
        fg_single_rounding_apply((value2 + in->input2_offset) * (1 << in->left_shift), &in->input2)};
    return pair;
}

/* ADD's and SUB's per-call constants: the inputs' and the output's rescaling, offset, clamp. */
typedef struct {
    fg_add_inputs inputs;
    fg_single_rounding output;
    int32_t output_offset, activation_min, activation_max;
} fg_add_stages;

static inline fg_add_stages fg_add_stages_of(const fg_add_params *p) {
    fg_add_stages s;
    s.inputs = fg_add_inputs_of(p);
    s.output = fg_single_rounding_of(p->output_multiplier, p->output_shift);
    s.output_offset = p->output_offset;
    s.activation_min = p->activation_min;
    s.activation_max = p->activation_max;
    return s;
}

/* A sum or difference at the common scale brought to the output, offset and clamped. */
static inline int32_t fg_add_output(const fg_add_stages *s, int32_t raw) {
    return fg_clamp_i32(fg_single_rounding_apply(raw, &s->output) + s->output_offset, s->activation_min,
                        s->activation_max);
}

/* One output of ADD (stages: fg_add_stages), the element function of its rows (fg/support/broadcast.h). */
static inline int32_t fg_add_element(const void *stages, int32_t value1, int32_t value2) {
    const fg_add_stages *s = (const fg_add_stages *)stages;
    const fg_add_pair pair = fg_add_rescale_pair(&s->inputs, value1, value2);
    return fg_add_output(s, pair.first + pair.second);
}

void fg_add_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);
void fg_add_s16(const fg_add_params *params, const int16_t *input1, const int16_t *input2, int16_t *output);

#endif /* FG_ADD_H */
