#include "fg/concatenation.h"

void fg_concatenation_s16(const fg_concatenation_params *params, const int16_t *const inputs[], int16_t *output) {
    fg_concatenation_s8(params, (const int8_t *const *)(const void *)inputs, (int8_t *)output);
}
