/* CONV_2D on Armv6-M (fg/isa/armv6m.h): one output pixel at a time, every group of eight channels from the
 * window's taps copied into one run (with the zero point in the padding), its outputs stored
 * after the pixel's inputs are read (the forward overlap of firmware_gen/ops/overlap.py). params->packed holds the
 * layer's weights as fg_armv6m_window_s8 reads them. */
#include <string.h>

#include "fg/isa/armv6m.h"
#include "fg/conv2d.h"

void fg_conv2d_pointwise_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const fg_requant_params requant = p->requant;
    (void)filter;
    for (int32_t i = 0; i < pixels; ++i) {
        const int8_t *x = input + i * in_c;
        fg_armv6m_window_s8(x, in_c, p->packed, out_c, p->folded_bias, &requant,
                            output + i * out_c);
    }
}

/* The window of output pixel (oy, ox) as one run of filter_h * filter_w * in_c taps: a pointer into the image when it
 * is one row inside it, else copied into `buffer` with the zero point in the padding. No division: Armv6-M has none,
 * and GCC's __aeabi_idiv would cost more than the copy. */
static const int8_t *fg_window_run(const fg_conv2d_params *p, const int8_t *image, int32_t oy, int32_t ox,
                                   int8_t *buffer) {
    const int32_t in_c = p->in_c, fw = p->filter_w, run = fw * in_c;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    const int columns_inside = p->dilation_w == 1 && x0 >= 0 && x0 + fw <= p->in_w;
    if (p->filter_h == 1 && columns_inside && y0 >= 0 && y0 < p->in_h) {
        return image + (y0 * p->in_w + x0) * in_c;
    }
    for (int32_t fy = 0; fy < p->filter_h; ++fy, buffer += run) {
        const int32_t y = y0 + fy * p->dilation_h;
        const int row_inside = y >= 0 && y < p->in_h;
        if (row_inside && columns_inside) {
            memcpy(buffer, image + (y * p->in_w + x0) * in_c, (size_t)run);
            continue;
        }
        for (int32_t fx = 0; fx < fw; ++fx) {
            const int32_t x = x0 + fx * p->dilation_w;
            if (row_inside && x >= 0 && x < p->in_w) {
                memcpy(buffer + fx * in_c, image + (y * p->in_w + x) * in_c, (size_t)in_c);
            } else {
                memset(buffer + fx * in_c, -p->requant.input_offset, (size_t)in_c);
            }
        }
    }
    return buffer - p->filter_h * run;
}

static inline __attribute__((always_inline)) void fg_conv2d_windows_armv6m(const fg_conv2d_params *p,
                                                                           const int8_t *input, int8_t *output,
                                                                           fg_armv6m_window_fn *window) {
    const int32_t out_c = p->out_c, taps = p->filter_h * p->filter_w * p->in_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[FG_CONV_GATHER_TAPS] __attribute__((aligned(4))); /* summed a word at a time */
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                const int8_t *x = fg_window_run(p, image, oy, ox, gathered);
                window(x, taps, p->packed, out_c, p->folded_bias, &requant, output);
            }
        }
    }
}

void fg_conv2d_folded_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_conv2d_windows_armv6m(p, input, output, fg_armv6m_window_s8);
}

/* fg_conv2d_s4 (4-bit weights, a window of at most FG_CONV_GATHER_TAPS taps): as fg_conv2d_folded_armv6m, the
 * weights as fg_armv6m_window_s4 reads them. */
void fg_conv2d_s4_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_conv2d_windows_armv6m(p, input, output, fg_armv6m_window_s4);
}
