/* SOFTMAX over the last dimension: int8 in and out (output scale 1/256, zero point -128), int8 in and int16 out
 * (output scale 1/65536, zero point -32768), or int16 in and out. */
#ifndef FG_SOFTMAX_H
#define FG_SOFTMAX_H

#include <stdint.h>

typedef struct {
    int32_t rows;              /* product of all dimensions but the last */
    int32_t depth;             /* the last dimension: softmax runs over it */
    int32_t input_multiplier;  /* beta * input_scale * 2^26 as Q31 multiplier ... */
    int32_t input_left_shift;  /* ... and left shift (>= 0): input differences become Q5.26 */
    int32_t diff_min;          /* differences below this contribute exp() = 0 */
} fg_softmax_params;

void fg_softmax_s8(const fg_softmax_params *params, const int8_t *input, int8_t *output);
void fg_softmax_s8_s16(const fg_softmax_params *params, const int8_t *input, int16_t *output);

/* SOFTMAX int16 -> int16 (16x8 models: input zero point 0, output scale 1/32768 zero point 0). */
typedef struct {
    int32_t rows;
    int32_t depth;
    int32_t input_multiplier;        /* input_scale * beta / (10 / 65535) as Q31 multiplier and shift (left if > 0): */
    int32_t input_shift;             /* differences from the row maximum, [-65535, 0], become [-10, 0] in the table */
    const int16_t *exp_lut;          /* 513 entries: exp on [-10, 0] in Q0.15 */
    const int16_t *reciprocal_lut;   /* 513 entries: 1 / (1 + x) on [0, 1] in Q0.15 */
} fg_softmax_s16_params;

void fg_softmax_s16(const fg_softmax_s16_params *params, const int16_t *input, int16_t *output);

#endif /* FG_SOFTMAX_H */
