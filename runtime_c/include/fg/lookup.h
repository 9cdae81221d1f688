/* An int8 -> int8 function given by its 256 values (computed at generation time with TFLM's integer formula):
 * ABS, RSQRT. */
#ifndef FG_LOOKUP_H
#define FG_LOOKUP_H

#include <stdint.h>

typedef struct {
    int32_t num_elements;
    const int8_t *table; /* 256 entries, indexed by the input byte + 128 */
} fg_lookup_params;

/* output[i] = table[input[i] + 128]; the output may be the input (in place). */
void fg_lookup_s8(const fg_lookup_params *params, const int8_t *input, int8_t *output);

#endif /* FG_LOOKUP_H */
