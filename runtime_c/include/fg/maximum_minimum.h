/* MAXIMUM and MINIMUM on int8 tensors with broadcasting. As TFLM, the raw int8 values are compared (the
 * quantization parameters are not looked at). */
#ifndef FG_MAXIMUM_MINIMUM_H
#define FG_MAXIMUM_MINIMUM_H

#include <stdint.h>

#include "fg/broadcast.h"

typedef struct {
    fg_broadcast_shape shape;
    int32_t flip; /* 0: MAXIMUM; -1: MINIMUM, the maximum of the bitwise complements (~x = -1 - x reverses order) */
} fg_maximum_minimum_params;

void fg_maximum_minimum_s8(const fg_maximum_minimum_params *params, const int8_t *input1, const int8_t *input2,
                           int8_t *output);

#endif /* FG_MAXIMUM_MINIMUM_H */
