#include "fg/pad.h"

void fg_pad_s16(const fg_pad_params *params, const int16_t *input, int16_t *output) {
    fg_pad_s8(params, (const int8_t *)input, (int8_t *)output);
}
