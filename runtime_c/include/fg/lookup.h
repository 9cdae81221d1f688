/* Unary int8 operators whose output depends only on the input byte (RELU, RELU6, LEAKY_RELU, HARD_SWISH, TANH,
 * ELU, GELU, ABS, RSQRT): a 256-entry table computed at generation time with TFLite Micro's arithmetic, one lookup per element. */
#ifndef FG_LOOKUP_H
#define FG_LOOKUP_H

#include <stdint.h>

typedef struct {
    int32_t size;        /* number of elements */
    const int8_t *table; /* 256 entries, indexed by the input byte read as uint8_t */
} fg_lookup_params;

/* output may be input (in place): each element is read before it is written. */
void fg_lookup_s8(const fg_lookup_params *params, const int8_t *input, int8_t *output);

#endif /* FG_LOOKUP_H */
