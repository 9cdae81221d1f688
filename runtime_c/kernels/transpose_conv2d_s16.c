#include "fg/dot_s16.h"
#include "fg/transpose_conv2d.h"

/* acc[k] += the taps of output channels [oc, oc + group) (group 4 or 1) that land on one output pixel. TFLM scatters
 * the same int32 products into an int64 scratch buffer; the sums are the same integers. */
static void fg_transpose_conv_s16_sums(const fg_transpose_conv2d_params *p, const int16_t *image, const int8_t *kernel,
                                       fg_tap_walk rows, fg_tap_walk cols, int32_t group, int64_t *acc) {
    const int32_t in_c = p->in_c, kernel_size = p->filter_h * p->filter_w * in_c;
    for (int32_t ky = 0; ky < rows.count; ++ky) {
        const int32_t fy = rows.tap + ky * p->stride_h, y = rows.row - ky;
        for (int32_t kx = 0; kx < cols.count; ++kx) {
            const int32_t fx = cols.tap + kx * p->stride_w, x = cols.row - kx;
            const int16_t *pixel = image + (y * p->in_w + x) * in_c;
            const int8_t *taps = kernel + (fy * p->filter_w + fx) * in_c;
            if (group == 4) {
                fg_dot4_s16_s8(pixel, taps, kernel_size, in_c, acc);
            } else {
                acc[0] += fg_dot_s16_s8(pixel, taps, in_c);
            }
        }
    }
}

void fg_transpose_conv2d_s16(const fg_transpose_conv2d_params *p, const int16_t *input, const int8_t *filter,
                             int16_t *output) {
    const fg_requant_params q = p->requant;
    const fg_wide_bias w = p->wide;
    const int32_t kernel_size = p->filter_h * p->filter_w * p->in_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const fg_tap_walk rows = fg_tap_walk_of(oy, p->pad_top, p->filter_h, p->stride_h, p->in_h);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const fg_tap_walk cols = fg_tap_walk_of(ox, p->pad_left, p->filter_w, p->stride_w, p->in_w);
                for (int32_t oc = 0; oc < p->out_c;) {
                    const int32_t group = p->out_c - oc >= 4 ? 4 : 1;
                    int64_t acc[4] = {0, 0, 0, 0};
                    fg_transpose_conv_s16_sums(p, image, filter + oc * kernel_size, rows, cols, group, acc);
                    for (int32_t k = 0; k < group; ++k, ++oc) {
                        *output++ = fg_requantize_channel_s16(&q, &w, acc[k], oc);
                    }
                }
            }
        }
    }
}
