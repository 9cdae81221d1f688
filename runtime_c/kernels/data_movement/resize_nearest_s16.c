#include "fg/resize.h"

void fg_resize_nearest_s16(const fg_resize_params *params, const int16_t *input, int16_t *output) {
    fg_resize_nearest_s8(params, (const int8_t *)input, (int8_t *)output);
}
