#include "fg/conv2d.h"
#include "fg/dot_s8.h"

void fg_conv2d_pointwise_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                            int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w;
    for (int32_t i = 0; i < pixels; ++i) {
        fg_dense_row_s8(input + i * p->in_c, filter, p->in_c, p->out_c, p->folded_bias, &p->requant,
                        output + i * p->out_c);
    }
}
