/* LOG_SOFTMAX, int8 in and out (output scale 16/256, zero point 127), over the last dimension. */
#ifndef FG_LOG_SOFTMAX_H
#define FG_LOG_SOFTMAX_H

#include <stdint.h>

/* A difference d = input - row maximum lies in [-255, 0]; what depends on d alone is computed at generation time
 * with TFLM's arithmetic and looked up at index -d. */
typedef struct {
    int32_t rows;                    /* product of all dimensions but the last */
    int32_t depth;                   /* the last dimension: log-softmax runs over it */
    int32_t reverse_scaling_divisor; /* the inverse of the input scaling to Q5.26, as multiplier ... */
    int32_t reverse_scaling_shift;   /* ... and shift (<= 0) */
    int32_t diff_min;                /* differences below this contribute exp() = 0 */
    const int32_t *diff_q5;          /* [256]: d in Q5.26 */
    const int32_t *exp_q12;          /* [256]: exp(d) in Q12.19, 0 below diff_min */
} fg_log_softmax_params;

/* output may be input (in place): each row is read whole before its first output is written, and each output
 * element after its own input element. */
void fg_log_softmax_s8(const fg_log_softmax_params *params, const int8_t *input, int8_t *output);

#endif /* FG_LOG_SOFTMAX_H */
