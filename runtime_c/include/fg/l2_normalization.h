/* L2_NORMALIZATION on int8 tensors along the last dimension (TFLite Micro reference semantics): each row of `depth`
 * values, less the input zero point, times the fixed-point inverse square root of its sum of squares, in 1/128 units
 * (the output's quantization is not applied, as in TFLM). */
#ifndef FG_L2_NORMALIZATION_H
#define FG_L2_NORMALIZATION_H

#include <stdint.h>

typedef struct {
    int32_t rows, depth;
    int32_t input_zero_point;
} fg_l2_normalization_params;

/* Reads a whole row before it writes that row: output may start at input (in place). */
void fg_l2_normalization_s8(const fg_l2_normalization_params *params, const int8_t *input, int8_t *output);

#endif /* FG_L2_NORMALIZATION_H */
