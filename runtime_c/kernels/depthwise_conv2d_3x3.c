#include "fg/depthwise_conv2d.h"
#include "fg/dot_s8.h"

/* acc[k] = bias + the taps of channel first + k, k < count, of a 3x3 window inside the image (r0 is its top left). */
FG_HOT_LOOP static void fg_dw3x3_interior(const int8_t *r0, int32_t row_step, int32_t col_step, const int8_t *w,
                                          const int32_t *bias, int32_t count, uint32_t *acc) {
    const int8_t *r1 = r0 + row_step, *r2 = r1 + row_step;
    const int32_t c2 = 2 * col_step;
    for (int32_t k = 0; k < count; ++k, w += 9) {
        const int32_t sum = w[0] * r0[k] + w[1] * r0[k + col_step] + w[2] * r0[k + c2]
                          + w[3] * r1[k] + w[4] * r1[k + col_step] + w[5] * r1[k + c2]
                          + w[6] * r2[k] + w[7] * r2[k + col_step] + w[8] * r2[k + c2];
        acc[k] = (uint32_t)bias[k] + (uint32_t)sum;
    }
}

/* The same for a window at the border: tap t reads x[t][k], a pointer into the image or, for a tap in the padding,
 * into a row of zero points (there x + input_offset is 0, which the folded bias expects). */
FG_HOT_LOOP static void fg_dw3x3_gathered(const int8_t *const x[9], const int8_t *w, const int32_t *bias,
                                          int32_t count, uint32_t *acc) {
    for (int32_t k = 0; k < count; ++k, w += 9) {
        int32_t sum = 0;
        for (int32_t t = 0; t < 9; ++t) {
            sum += w[t] * x[t][k];
        }
        acc[k] = (uint32_t)bias[k] + (uint32_t)sum;
    }
}

/* One output pixel, FG_REQUANT_CHUNK channels at a time. window_start is the offset of its top left tap when the
 * whole window is inside the image, else negative. */
static void fg_dw3x3_pixel(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                           int32_t window_start, int8_t *output) {
    const int32_t channels = p->in_c;
    int8_t zero_points[FG_REQUANT_CHUNK];
    int32_t offsets[9];  /* of each tap in the image, -1 in the padding */
    if (window_start < 0) {
        for (int32_t k = 0; k < FG_REQUANT_CHUNK; ++k) {
            zero_points[k] = (int8_t)-p->requant.input_offset;
        }
        for (int32_t t = 0; t < 9; ++t) {
            const int32_t y = y0 + (t / 3) * p->dilation_h, x = x0 + (t % 3) * p->dilation_w;
            offsets[t] = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w ? (y * p->in_w + x) * channels : -1;
        }
    }
    uint32_t acc[FG_REQUANT_CHUNK];
    for (int32_t c = 0; c < channels; c += FG_REQUANT_CHUNK) {
        const int32_t count = channels - c < FG_REQUANT_CHUNK ? channels - c : FG_REQUANT_CHUNK;
        const int8_t *taps = p->channel_taps + 9 * c;
        if (window_start >= 0) {
            fg_dw3x3_interior(image + window_start + c, p->dilation_h * p->in_w * channels, p->dilation_w * channels,
                              taps, p->folded_bias + c, count, acc);
        } else {
            const int8_t *x[9];
            for (int32_t t = 0; t < 9; ++t) {
                x[t] = offsets[t] >= 0 ? image + offsets[t] + c : zero_points;
            }
            fg_dw3x3_gathered(x, taps, p->folded_bias + c, count, acc);
        }
        fg_requantize_run_s8(&p->requant, acc, c, count, output + c);
    }
}

void fg_depthwise_conv2d_3x3_s8(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->in_c;
    /* Output columns [first, end) have their windows' columns inside the image. */
    const int32_t first = (p->pad_left + p->stride_w - 1) / p->stride_w;
    const int32_t last_x = p->in_w - 1 - 2 * p->dilation_w + p->pad_left;
    const int32_t end = last_x < 0 ? 0 : last_x / p->stride_w + 1;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h;
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                const int inside = rows_inside && ox >= first && ox < end;
                fg_dw3x3_pixel(p, image, y0, x0, inside ? (y0 * p->in_w + x0) * channels : -1, output);
                output += channels;
            }
        }
    }
}
