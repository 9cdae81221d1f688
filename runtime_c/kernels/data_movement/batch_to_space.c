#include "fg/space_batch.h"

#include <string.h>

#include "fg/support/hot_loop.h"

/* Output pixels in order; output (n, y, x) comes from input batch (sy * block_w + sx) * N + n, where
 * y + crop_top = iy * block_h + sy and x + crop_left = ix * block_w + sx. */
FG_HOT_LOOP void fg_batch_to_space_s8(const fg_space_batch_params *p, const int8_t *input, int8_t *output) {
    const int32_t out_n = p->out_shape[0], in_h = p->in_shape[1], in_w = p->in_shape[2], depth = p->in_shape[3];
    for (int32_t n = 0; n < out_n; ++n) {
        for (int32_t oy = 0; oy < p->out_shape[1]; ++oy) {
            const int32_t y = oy + p->before_h, iy = y / p->block_h, sy = y % p->block_h;
            for (int32_t ox = 0; ox < p->out_shape[2]; ++ox) {
                const int32_t x = ox + p->before_w, ix = x / p->block_w, sx = x % p->block_w;
                const int32_t batch = (sy * p->block_w + sx) * out_n + n;
                memcpy(output, input + ((batch * in_h + iy) * in_w + ix) * depth, (size_t)depth);
                output += depth;
            }
        }
    }
}
