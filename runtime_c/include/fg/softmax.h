/* SOFTMAX, int8 in and out (output scale 1/256, zero point -128), over the last dimension. */
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

#endif /* FG_SOFTMAX_H */
