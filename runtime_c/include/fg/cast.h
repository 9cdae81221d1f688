/* CAST between int8, int16 and int32, as TFLite Micro's static_cast: widening keeps the value, narrowing keeps
 * the low bits (two's complement). One kernel per (input, output) type pair, each defined by FG_CAST_KERNEL. */
#ifndef FG_CAST_H
#define FG_CAST_H

#include <stdint.h>

#include "fg/support/hot_loop.h"

typedef struct {
    int32_t size; /* number of elements */
} fg_cast_params;

#define FG_CAST_KERNEL(name, from_type, to_type)                                          \
    FG_HOT_LOOP void name(const fg_cast_params *params, const from_type *input, to_type *output) { \
        for (const from_type *const end = input + params->size; input < end;) {           \
            *output++ = (to_type)(uint32_t)*input++; /* modulo 2^bits, without UB */      \
        }                                                                                 \
    }

void fg_cast_s8_s16(const fg_cast_params *params, const int8_t *input, int16_t *output);
void fg_cast_s8_s32(const fg_cast_params *params, const int8_t *input, int32_t *output);
void fg_cast_s16_s8(const fg_cast_params *params, const int16_t *input, int8_t *output);
void fg_cast_s16_s32(const fg_cast_params *params, const int16_t *input, int32_t *output);
void fg_cast_s32_s8(const fg_cast_params *params, const int32_t *input, int8_t *output);
void fg_cast_s32_s16(const fg_cast_params *params, const int32_t *input, int16_t *output);

#endif /* FG_CAST_H */
