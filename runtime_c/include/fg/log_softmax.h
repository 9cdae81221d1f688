/* LOG_SOFTMAX, int8 in and out (output scale 16/256, zero point 127), over the last dimension. */
#ifndef FG_LOG_SOFTMAX_H
#define FG_LOG_SOFTMAX_H

#include <stdint.h>

typedef struct {
    int32_t rows;                    /* product of all dimensions but the last */
    int32_t depth;                   /* the last dimension: log-softmax runs over it */
    int32_t input_multiplier;        /* input_scale * 2^26 as Q31 multiplier ... */
    int32_t input_left_shift;        /* ... and left shift (>= 0): input differences become Q5.26 */
    int32_t reverse_scaling_divisor; /* the inverse of that scaling, as multiplier ... */
    int32_t reverse_scaling_shift;   /* ... and shift (<= 0) */
    int32_t diff_min;                /* differences below this contribute exp() = 0 */
} fg_log_softmax_params;

/* output may be input (in place): each row is read whole before its first output is written, and each output
 * element after its own input element. */
void fg_log_softmax_s8(const fg_log_softmax_params *params, const int8_t *input, int8_t *output);

#endif /* FG_LOG_SOFTMAX_H */
