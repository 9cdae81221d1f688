/* PAD / PADV2 on up to 5 dimensions (fewer are extended on the left with size 1): every output element
 * outside the input box takes pad_value. */
#ifndef FG_PAD_H
#define FG_PAD_H

#include <stdint.h>

#define FG_PAD_RANK 5

typedef struct {
    int32_t input_shape[FG_PAD_RANK];
    int32_t before[FG_PAD_RANK];
    int32_t after[FG_PAD_RANK];
    int32_t pad_value;
    int32_t value_bytes; /* 1: every pad byte is pad_value; 2 (int16): its two bytes, from element boundaries */
} fg_pad_params;

void fg_pad_s8(const fg_pad_params *params, const int8_t *input, int8_t *output);

/* int16 tensors (16x8 models): fg_pad_s8 on their bytes, the innermost dimension the two bytes of an element (so
 * every padded run starts and ends on an element boundary). */
void fg_pad_s16(const fg_pad_params *params, const int16_t *input, int16_t *output);

#endif /* FG_PAD_H */
