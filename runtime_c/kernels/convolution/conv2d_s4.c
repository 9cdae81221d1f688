#include <string.h>

#include "fg/conv2d.h"
#include "fg/support/requantize.h"
#include "fg/support/weights_s4.h"

/* Filter row fy of one output channel's window (its taps from nibble `base` on) at an output pixel whose window
 * starts at column x_origin of image row y (or outside the image): the taps inside the image multiply the input,
 * those in the padding the input zero point (which the folded bias subtracts again). For windows too large to
 * gather. */
static uint32_t row_taps(const fg_conv2d_params *p, const int8_t *image, int32_t y, int32_t x_origin,
                         const uint8_t *w, int32_t base) {
    const int32_t in_c = p->in_c, zero_point = -p->requant.input_offset;
    if (y < 0 || y >= p->in_h) {
        return fg_scaled_sum_s4(zero_point, w, base, p->filter_w * in_c);
    }
    const int8_t *row = image + y * p->in_w * in_c;
    uint32_t acc = 0;
    for (int32_t fx = 0; fx < p->filter_w; ++fx) {
        const int32_t x = x_origin + fx * p->dilation_w;
        acc += x < 0 || x >= p->in_w ? fg_scaled_sum_s4(zero_point, w, base + fx * in_c, in_c)
                                     : fg_dot_s4(row + x * in_c, w, base + fx * in_c, in_c);
    }
    return acc;
}

/* The window of one output pixel in `patch` (filter_h * filter_w * in_c taps, the input zero point in the
 * padding); a 1x1 filter reads the pixel in place. Returns the taps. */
static const int8_t *gather_window(const fg_conv2d_params *p, const int8_t *image, int32_t y_origin,
                                   int32_t x_origin, int8_t *patch) {
    const int32_t in_c = p->in_c;
    if (p->filter_h == 1 && p->filter_w == 1 && y_origin >= 0 && y_origin < p->in_h && x_origin >= 0 &&
        x_origin < p->in_w) {
        return image + (y_origin * p->in_w + x_origin) * in_c;
    }
    int8_t *to = patch;
    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t y = y_origin + fy * p->dilation_h;
        for (int32_t fx = 0; fx < p->filter_w; ++fx, to += in_c) {
            const int32_t x = x_origin + fx * p->dilation_w;
            if (y < 0 || y >= p->in_h || x < 0 || x >= p->in_w) {
                memset(to, -p->requant.input_offset, (size_t)in_c);
            } else {
                memcpy(to, image + (y * p->in_w + x) * in_c, (size_t)in_c);
            }
        }
    }
    return patch;
}

/* The accumulators of output channels [chunk, chunk + count) at one output pixel. */
static void pixel_chunk(const fg_conv2d_params *p, const int8_t *image, const int8_t *taps, int32_t y_origin,
                        int32_t x_origin, int32_t chunk, int32_t count, uint32_t *acc) {
    const int32_t depth = p->filter_h * p->filter_w * p->in_c, row_bytes = (depth + 1) / 2;
    const int8_t *w = (const int8_t *)p->packed;
    for (int32_t k = 0; k < count; k += 4) {
        const int8_t *rows[4];
        fg_s4_rows4(w, row_bytes, p->folded_bias, chunk, k, count, rows, acc);
        if (taps != NULL) {
            fg_dot4_s4(taps, rows, depth, acc + k);
            continue;
        }
        for (int32_t j = 0; j < 4 && k + j < count; ++j) {
            for (int32_t fy = 0; fy < p->filter_h; ++fy) {
                acc[k + j] += row_taps(p, image, y_origin + fy * p->dilation_h, x_origin, (const uint8_t *)w,
                                       2 * (chunk + k + j) * row_bytes + fy * p->filter_w * p->in_c);
            }
        }
    }
}

void fg_conv2d_s4(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int gather = p->filter_h * p->filter_w * p->in_c <= FG_CONV_GATHER_TAPS;
    int8_t patch[FG_CONV_GATHER_TAPS];
    uint32_t acc[FG_REQUANT_CHUNK];
    (void)filter;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += p->out_c) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                const int8_t *taps = gather ? gather_window(p, image, y_origin, x_origin, patch) : NULL;
                for (int32_t chunk = 0; chunk < p->out_c; chunk += FG_REQUANT_CHUNK) {
                    const int32_t count = p->out_c - chunk < FG_REQUANT_CHUNK ? p->out_c - chunk : FG_REQUANT_CHUNK;
                    pixel_chunk(p, image, taps, y_origin, x_origin, chunk, count, acc);
                    fg_requantize_run_s8(&p->requant, acc, chunk, count, output + chunk);
                }
            }
        }
    }
}
