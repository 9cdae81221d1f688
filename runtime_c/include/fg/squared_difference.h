/* SQUARED_DIFFERENCE on int8 tensors with broadcasting (TFLite reference semantics). The parameters are ADD's
 * with 7 bits of headroom (so that the square of a 255 << 7 difference fits in int32) and an output multiplier
 * that may be above one (output_shift > 0: left shift). */
#ifndef FG_SQUARED_DIFFERENCE_H
#define FG_SQUARED_DIFFERENCE_H

#include <stdint.h>

#include "fg/add.h"

void fg_squared_difference_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2,
                              int8_t *output);

#endif /* FG_SQUARED_DIFFERENCE_H */
