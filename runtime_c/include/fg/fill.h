/* FILL (every element = the scalar `value` tensor) and ZEROS_LIKE (value NULL: every element 0, not the zero
 * point, as TFLM writes it). */
#ifndef FG_FILL_H
#define FG_FILL_H

#include <stdint.h>

typedef struct {
    int32_t count;
} fg_fill_params;

void fg_fill_s8(const fg_fill_params *params, const int8_t *value, int8_t *output);

#endif /* FG_FILL_H */
