/* FULLY_CONNECTED on int8 tensors with int8 weights (TFLite Micro reference semantics). */
#ifndef FG_FULLY_CONNECTED_H
#define FG_FULLY_CONNECTED_H

#include <stdint.h>

typedef struct {
    int32_t batches;      /* the input read as [batches, accum_depth] */
    int32_t accum_depth;
    int32_t out_depth;
    int32_t input_offset;   /* minus the input zero point */
    int32_t output_offset;  /* the output zero point */
    int32_t activation_min, activation_max;
    int32_t per_channel;    /* 1: one multiplier and shift per output channel; 0: a single entry */
    const int32_t *multipliers;
    const int32_t *shifts;
} fg_fully_connected_params;

/* weights are [out_depth, accum_depth]; bias is [out_depth] or NULL; output is [batches, out_depth]. */
void fg_fully_connected_s8(const fg_fully_connected_params *params, const int8_t *input, const int8_t *weights,
                           const int32_t *bias, int8_t *output);

#endif /* FG_FULLY_CONNECTED_H */
