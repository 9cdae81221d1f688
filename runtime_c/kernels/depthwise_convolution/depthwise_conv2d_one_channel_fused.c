#include "fg/conv2d.h"

void fg_depthwise_conv2d_one_channel_fused_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                              int8_t *output) {
    fg_conv2d_folded_fused_s8(p, input, filter, output);
}

void fg_depthwise_conv2d_one_channel_fused_floor_s8(const fg_conv2d_params *p, const int8_t *input,
                                                    const int8_t *filter, int8_t *output) {
    fg_conv2d_folded_fused_floor_s8(p, input, filter, output);
}
