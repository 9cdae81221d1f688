/* SUB on int8 or int16 tensors with broadcasting (TFLite reference semantics): ADD's rescaling with the second
 * input subtracted; the parameters are ADD's. */
#ifndef FG_SUB_H
#define FG_SUB_H

#include <stdint.h>

#include "fg/add.h"

/* One output of SUB (stages: fg_add_stages). */
static inline int32_t fg_sub_element(const void *stages, int32_t value1, int32_t value2) {
    const fg_add_stages *s = (const fg_add_stages *)stages;
    const fg_add_pair pair = fg_add_rescale_pair(&s->inputs, value1, value2);
    return fg_add_output(s, pair.first - pair.second);
}

void fg_sub_s8(const fg_add_params *params, const int8_t *input1, const int8_t *input2, int8_t *output);
void fg_sub_s16(const fg_add_params *params, const int16_t *input1, const int16_t *input2, int16_t *output);

#endif /* FG_SUB_H */
