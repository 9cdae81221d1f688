#include "fg/conv2d.h"
#include "fg/requantize.h"
#include "fg/weights_s4.h"

/* Filter row fy of one output channel's window (its taps from nibble `base` on) at an output pixel whose window
 * starts at column x_origin of image row y (or outside the image): the taps inside the image multiply the input,
 * those in the padding the input zero point (which the folded bias subtracts again). */
static uint32_t row_taps(const fg_conv2d_params *p, const int8_t *image, int32_t y, int32_t x_origin,
                         const uint8_t *w, int32_t base) {
    const int32_t in_c = p->in_c, zero_point = -p->requant.input_offset;
    if (y < 0 || y >= p->in_h) {
        return fg_scaled_sum_s4(zero_point, w, base, p->filter_w * in_c);
    }
    const int8_t *row = image + y * p->in_w * in_c;
    if (p->dilation_w == 1) {  /* the taps inside are one run of inputs */
        const int32_t first = x_origin < 0 ? -x_origin : 0;
        const int32_t end = p->in_w - x_origin < p->filter_w ? p->in_w - x_origin : p->filter_w;
        if (first >= end) {
            return fg_scaled_sum_s4(zero_point, w, base, p->filter_w * in_c);
        }
        return fg_dot_s4(row + (x_origin + first) * in_c, w, base + first * in_c, (end - first) * in_c) +
               fg_scaled_sum_s4(zero_point, w, base, first * in_c) +
               fg_scaled_sum_s4(zero_point, w, base + end * in_c, (p->filter_w - end) * in_c);
    }
    uint32_t acc = 0;
    for (int32_t fx = 0; fx < p->filter_w; ++fx) {
        const int32_t x = x_origin + fx * p->dilation_w;
        acc += x < 0 || x >= p->in_w ? fg_scaled_sum_s4(zero_point, w, base + fx * in_c, in_c)
                                     : fg_dot_s4(row + x * in_c, w, base + fx * in_c, in_c);
    }
    return acc;
}

void fg_conv2d_s4(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const uint8_t *w = (const uint8_t *)p->packed;
    const int32_t row_nibbles = p->filter_w * p->in_c;
    uint32_t acc[FG_REQUANT_CHUNK];
    (void)filter;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += p->out_c) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                for (int32_t chunk = 0; chunk < p->out_c; chunk += FG_REQUANT_CHUNK) {
                    const int32_t count = p->out_c - chunk < FG_REQUANT_CHUNK ? p->out_c - chunk : FG_REQUANT_CHUNK;
                    for (int32_t k = 0; k < count; ++k) {
                        uint32_t sum = (uint32_t)p->folded_bias[chunk + k];
                        for (int32_t fy = 0; fy < p->filter_h; ++fy) {
                            sum += row_taps(p, image, y_origin + fy * p->dilation_h, x_origin, w,
                                            ((chunk + k) * p->filter_h + fy) * row_nibbles);
                        }
                        acc[k] = sum;
                    }
                    fg_requantize_run_s8(&p->requant, acc, chunk, count, output + chunk);
                }
            }
        }
    }
}
