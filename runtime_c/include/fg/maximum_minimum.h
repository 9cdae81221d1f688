/* MAXIMUM and MINIMUM on int8 or int16 tensors with broadcasting. As TFLM, the raw values are compared (the
 * quantization parameters are not looked at). */
#ifndef FG_MAXIMUM_MINIMUM_H
#define FG_MAXIMUM_MINIMUM_H

#include <stdint.h>

#include "fg/support/broadcast.h"

typedef struct {
    fg_broadcast_shape shape;
    int32_t flip; /* 0: MAXIMUM; -1: MINIMUM, the maximum of the bitwise complements (~x = -1 - x reverses order) */
} fg_maximum_minimum_params;

void fg_maximum_minimum_s8(const fg_maximum_minimum_params *params, const int8_t *input1, const int8_t *input2,
                           int8_t *output);
void fg_maximum_minimum_s16(const fg_maximum_minimum_params *params, const int16_t *input1, const int16_t *input2,
                            int16_t *output);

/* The element of either size (params: the fg_maximum_minimum_params, as FG_BINARY_ROW passes them). */
static inline int32_t fg_maximum_minimum_element(const void *params, int32_t a, int32_t b) {
    const int32_t flip = ((const fg_maximum_minimum_params *)params)->flip;
    return (a ^ flip) > (b ^ flip) ? a : b;
}

#endif /* FG_MAXIMUM_MINIMUM_H */
