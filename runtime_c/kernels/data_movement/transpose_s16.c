#include "fg/transpose.h"

void fg_transpose_s16(const fg_transpose_params *params, const int16_t *input, int16_t *output) {
    fg_transpose_s8(params, (const int8_t *)input, (int8_t *)output);
}
