#include "fg/support/dot_s16.h"
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

static void *fg_transpose_conv_s16_pixel(const fg_transpose_conv2d_params *p, const void *image, const int8_t *filter,
                                         const int32_t *bias, fg_tap_walk rows, fg_tap_walk cols, void *output) {
    const int32_t kernel_size = p->filter_h * p->filter_w * p->in_c;
    int16_t *out = (int16_t *)output;
    (void)bias;  /* in p->wide */
    for (int32_t oc = 0; oc < p->out_c;) {
        const int32_t group = p->out_c - oc >= 4 ? 4 : 1;
        int64_t acc[4] = {0, 0, 0, 0};
        fg_transpose_conv_s16_sums(p, (const int16_t *)image, filter + oc * kernel_size, rows, cols, group, acc);
        out = fg_requantize_block_s16(&p->requant, &p->wide, acc, oc, group, out);
        oc += group;
    }
    return out;
}

void fg_transpose_conv2d_s16(const fg_transpose_conv2d_params *p, const int16_t *input, const int8_t *filter,
                             int16_t *output) {
    fg_transpose_conv2d_walk(p, input, 2, filter, 0, output, fg_transpose_conv_s16_pixel);
}
