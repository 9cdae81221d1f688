/* NEG of float32 (TFLM's NEG has no int8 kernel): output = -input, element by element; exact in IEEE float. */
#ifndef FG_NEG_H
#define FG_NEG_H

#include <stdint.h>

typedef struct {
    int32_t size;
} fg_neg_params;

void fg_neg_f32(const fg_neg_params *params, const float *input, float *output);

#endif /* FG_NEG_H */
