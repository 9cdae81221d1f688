/* RSQRT on int16 tensors (16x8 models, zero points 0): TFLite Micro's RsqrtEvalQuantized per element. */
#ifndef FG_RSQRT_S16_H
#define FG_RSQRT_S16_H

#include <stdint.h>

typedef struct {
    int32_t size;
    int32_t multiplier; /* 1 / (sqrt(input scale) * output scale) as a Q31 multiplier and shift */
    int32_t shift;
} fg_rsqrt_s16_params;

void fg_rsqrt_s16(const fg_rsqrt_s16_params *params, const int16_t *input, int16_t *output);

#endif /* FG_RSQRT_S16_H */
