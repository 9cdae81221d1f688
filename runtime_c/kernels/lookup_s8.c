/* One table lookup per element (see fg/lookup.h). */
#include "fg/lookup.h"

void fg_lookup_s8(const fg_lookup_params *params, const int8_t *input, int8_t *output) {
    const int8_t *table = params->table;
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = table[(uint8_t)input[i]];
    }
}
