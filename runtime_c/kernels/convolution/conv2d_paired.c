#include "fg/conv2d.h"

/* The blocked kernels walk the paired layout when params->blocked.paired is set (fg/support/dot_s8.h): these names only
 * say, in model.c and in profiles, which layout a step uses. */
void fg_conv2d_pointwise_paired_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                   int8_t *output) {
    fg_conv2d_pointwise_s8(p, input, filter, output);
}

void fg_conv2d_folded_paired_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                int8_t *output) {
    fg_conv2d_folded_s8(p, input, filter, output);
}

void fg_depthwise_conv2d_one_channel_paired_s8(const fg_conv2d_params *p, const int8_t *input,
                                               const int8_t *filter, int8_t *output) {
    fg_conv2d_folded_s8(p, input, filter, output);
}
