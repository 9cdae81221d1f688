#include "fg/space_batch.h"

#include <string.h>

/* Output pixels in order; output batch (sy * block_w + sx) * N + n reads input image n at offset (sy, sx). */
void fg_space_to_batch_s8(const fg_space_batch_params *p, const int8_t *input, int8_t *output) {
    const int32_t in_n = p->in_shape[0], in_h = p->in_shape[1], in_w = p->in_shape[2], depth = p->in_shape[3];
    for (int32_t ob = 0; ob < p->out_shape[0]; ++ob) {
        const int32_t n = ob % in_n, shift = ob / in_n;
        const int32_t sy = shift / p->block_w, sx = shift % p->block_w;
        for (int32_t oy = 0; oy < p->out_shape[1]; ++oy) {
            const int32_t y = oy * p->block_h + sy - p->before_h;
            for (int32_t ox = 0; ox < p->out_shape[2]; ++ox) {
                const int32_t x = ox * p->block_w + sx - p->before_w;
                if (y < 0 || y >= in_h || x < 0 || x >= in_w) {
                    memset(output, 0, (size_t)depth);
                } else {
                    memcpy(output, input + ((n * in_h + y) * in_w + x) * depth, (size_t)depth);
                }
                output += depth;
            }
        }
    }
}
