/* SVDF on int8 activations with an int16 or int8 activation state (TFLite Micro's integer SVDF). */
#ifndef FG_SVDF_H
#define FG_SVDF_H

#include <stdint.h>

typedef struct {
    int32_t batches;           /* input [batches, input_size], output [batches, units] */
    int32_t input_size;
    int32_t filters;           /* units * rank */
    int32_t units;
    int32_t rank;
    int32_t memory;            /* the state keeps `memory` columns per filter */
    int32_t input_offset;      /* -input zero point (folded into feature_bias; kept for the record) */
    int32_t state_zero_point;
    int32_t output_zero_point;
    int32_t feature_multiplier; /* input * weights_feature -> state scale */
    int32_t feature_shift;
    int32_t output_multiplier;  /* state * weights_time -> output scale */
    int32_t output_shift;
    int32_t state_bits;         /* 16: state and weights_time are int16; 8: int8 */
    /* [filters]: input_offset * (the sum of each filter's feature weights), computed at generation time, so the
     * feature product is feature_bias[f] + sum(weights * input): TFLM's sum(weights * (input - zero point)). */
    const int32_t *feature_bias;
} fg_svdf_params;

/* weights_feature [filters, input_size]; weights_time [filters, memory] and state [batches, filters * memory] of the
 * state's type; bias [units] or NULL. The state is read and updated in place: it must keep its bytes from one call
 * to the next (the memory plan's `state` buffers), starting from the state's zero point (int8) or 0 (int16). No
 * scratch memory. */
void fg_svdf_s8(const fg_svdf_params *params, const int8_t *input, const int8_t *weights_feature,
                const void *weights_time, const int32_t *bias, int8_t *output, void *state);

#endif /* FG_SVDF_H */
