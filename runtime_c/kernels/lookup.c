#include "fg/lookup.h"

void fg_lookup_s8(const fg_lookup_params *params, const int8_t *input, int8_t *output) {
    const int8_t *table = params->table + 128;
    for (int32_t i = 0; i < params->num_elements; ++i) {
        output[i] = table[input[i]];
    }
}
