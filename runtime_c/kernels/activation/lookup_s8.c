/* One table lookup per element (see fg/lookup.h), four elements per iteration: each group of four is read whole
 * before it is written, so the kernel also runs in place. */
#include "fg/lookup.h"

void fg_lookup_s8(const fg_lookup_params *params, const int8_t *input, int8_t *output) {
    const int8_t *table = params->table;
    const int32_t size = params->size;
    int32_t i = 0;
    for (; i + 4 <= size; i += 4) {
        const uint8_t a = (uint8_t)input[i], b = (uint8_t)input[i + 1];
        const uint8_t c = (uint8_t)input[i + 2], d = (uint8_t)input[i + 3];
        output[i] = table[a];
        output[i + 1] = table[b];
        output[i + 2] = table[c];
        output[i + 3] = table[d];
    }
    for (; i < size; ++i) {
        output[i] = table[(uint8_t)input[i]];
    }
}
