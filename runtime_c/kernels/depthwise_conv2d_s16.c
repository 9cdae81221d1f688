#include "fg/depthwise_conv2d.h"
#include "fg/dot_s16.h"

/* Output channels per pass of one pixel: their partial sums stay on the stack while the taps go by. */
#define FG_DW_S16_CHUNK 32

/* sums[k] = the products of output channel first + k, k < count, over filter rows [rows[0], rows[1]) and columns
 * [span[2], span[3]) (taps outer, channels inner: consecutive channels read consecutive filter bytes and, with depth
 * multiplier 1, consecutive input values). At most 512 taps: int32 holds their sum. */
static void fg_depthwise_s16_chunk(const fg_depthwise_conv2d_params *p, const int16_t *image, const int8_t *filter,
                                   int32_t y_origin, int32_t x_origin, const int32_t rows[2], const int32_t span[4],
                                   int32_t first, int32_t count, int32_t *sums) {
    const int32_t in_c = p->in_c, multiplier = p->depth_multiplier;
    const int32_t out_c = in_c * multiplier;
    for (int32_t k = 0; k < count; ++k) {
        sums[k] = 0;
    }
    for (int32_t fy = rows[0]; fy < rows[1]; ++fy) {
        const int32_t y = y_origin + fy * p->dilation_h;
        for (int32_t fx = span[2]; fx < span[3]; ++fx) {
            const int16_t *pixel = image + (y * p->in_w + x_origin + fx * p->dilation_w) * in_c;
            const int8_t *taps = filter + (fy * p->filter_w + fx) * out_c + first;
            if (multiplier == 1) {
                pixel += first;
                for (int32_t k = 0; k < count; ++k) {
                    sums[k] += (int32_t)taps[k] * pixel[k];
                }
            } else {
                for (int32_t k = 0; k < count; ++k) {
                    sums[k] += (int32_t)taps[k] * pixel[(first + k) / multiplier];
                }
            }
        }
    }
}

/* acc[k] = the whole window of output channel first + k: runs of filter rows of at most 512 taps, widened. */
static void fg_depthwise_s16_window(const fg_depthwise_conv2d_params *p, const int16_t *image, const int8_t *filter,
                                    int32_t y_origin, int32_t x_origin, const int32_t span[4], int32_t first,
                                    int32_t count, int64_t *acc) {
    const int32_t group = p->filter_w >= 256 ? 1 : 256 / p->filter_w;
    int32_t sums[FG_DW_S16_CHUNK];
    for (int32_t k = 0; k < count; ++k) {
        acc[k] = 0;
    }
    for (int32_t fy = span[0]; fy < span[1]; fy += group) {
        const int32_t rows[2] = {fy, fy + group < span[1] ? fy + group : span[1]};
        fg_depthwise_s16_chunk(p, image, filter, y_origin, x_origin, rows, span, first, count, sums);
        for (int32_t k = 0; k < count; ++k) {
            acc[k] += sums[k];
        }
    }
}

void fg_depthwise_conv2d_s16(const fg_depthwise_conv2d_params *p, const int16_t *input, const int8_t *filter,
                             int16_t *output) {
    const fg_requant_params q = p->requant;
    const fg_wide_bias w = p->wide;
    const int32_t in_c = p->in_c;
    const int32_t out_c = in_c * p->depth_multiplier;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            int32_t span[4];  /* in-bounds filter rows [span[0], span[1]) and columns [span[2], span[3]) */
            fg_window_inside(y_origin, p->filter_h, p->dilation_h, p->in_h, &span[0], &span[1]);
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                fg_window_inside(x_origin, p->filter_w, p->dilation_w, p->in_w, &span[2], &span[3]);
                for (int32_t first = 0; first < out_c; first += FG_DW_S16_CHUNK) {
                    const int32_t count = out_c - first < FG_DW_S16_CHUNK ? out_c - first : FG_DW_S16_CHUNK;
                    int64_t acc[FG_DW_S16_CHUNK];
                    fg_depthwise_s16_window(p, image, filter, y_origin, x_origin, span, first, count, acc);
                    for (int32_t k = 0; k < count; ++k) {
                        *output++ = fg_requantize_channel_s16(&q, &w, acc[k], first + k);
                    }
                }
            }
        }
    }
}
