/* SUB on int8 tensors with broadcasting (TFLite reference semantics): ADD's rescaling with the second input
 * subtracted; the parameters are ADD's. */
#ifndef FG_SUB_H
#define FG_SUB_H

#include <stdint.h>

#include "fg/add.h"

void fg_sub_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);

#endif /* FG_SUB_H */
