#include "fg/fill.h"

#include <string.h>

void fg_fill_s8(const fg_fill_params *params, const int8_t *value, int8_t *output) {
    memset(output, value != NULL ? *value : 0, (size_t)params->count);
}
