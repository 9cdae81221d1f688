/* LOGISTIC (sigmoid), int8 in and out (output zero point -128, scale 1/256), elementwise. */
#ifndef FG_LOGISTIC_H
#define FG_LOGISTIC_H

#include <stdint.h>

typedef struct {
    int32_t size;                /* number of elements */
    int32_t input_zero_point;
    int32_t input_range_radius;  /* |input - zero_point| >= radius saturates the output */
    int32_t input_multiplier;    /* input_scale * 2^27 as Q31 multiplier ... */
    int32_t input_left_shift;    /* ... and shift (left if > 0): inputs become Q4.27 */
} fg_logistic_params;

void fg_logistic_s8(const fg_logistic_params *params, const int8_t *input, int8_t *output);

#endif /* FG_LOGISTIC_H */
