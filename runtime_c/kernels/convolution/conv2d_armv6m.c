/* CONV_2D on Armv6-M (fg/isa/armv6m.h): one output pixel at a time, every group of eight channels from the
 * window's taps read in place or copied into one run (with the zero point in the padding), its outputs stored
 * after the pixel's inputs are read (the forward overlap of firmware_gen/ops/overlap.py). params->packed holds the
 * layer's weights as fg_armv6m_window_s8 reads them. */
#include <string.h>

#include "fg/isa/armv6m.h"
#include "fg/conv2d.h"
#include "fg/support/hot_loop.h"
#include "fg/support/window_run.h"

/* A 1x1 convolution of stride 1 and no padding: pixel i's window is its in_c inputs. */
static inline __attribute__((always_inline)) void fg_armv6m_pixels(const fg_conv2d_params *p, const int8_t *input,
                                                                   int8_t *output, int32_t int4) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const fg_requant_params requant = p->requant;
    for (int32_t i = 0; i < pixels; ++i) {
        (int4 ? fg_armv6m_window_s4 : fg_armv6m_window_s8)(input + i * in_c, in_c, p->packed, out_c, 0, &requant,
                                                            output + i * out_c);
    }
}

void fg_conv2d_pointwise_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                int8_t *output) {
    (void)filter;
    fg_armv6m_pixels(p, input, output, 0);
}

/* n >= 1 bytes from `from` to `to`; their sum. Indexed from the end up to zero: LDRSB, STRB, two ADDs and a branch
 * a byte. */
static inline int32_t fg_copy_summing(int8_t *to, const int8_t *from, int32_t n) {
    int32_t sum = 0;
    to += n;
    from += n;
    for (int32_t i = -n; i != 0; ++i) {
        const int8_t v = from[i];
        to[i] = v;
        sum += v;
    }
    return sum;
}

/* The taps of output pixel (oy, ox)'s window copied into `taps` row by row, the input zero point in the padding;
 * their sum (the copy reads each once: no second pass to sum them). No division: Armv6-M has none. */
static FG_HOT_LOOP int32_t fg_armv6m_gather(const fg_conv2d_params *p, const int8_t *image, int32_t oy, int32_t ox, int8_t *taps) {
    const int32_t in_c = p->in_c, in_w = p->in_w, fw = p->filter_w;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    const int columns_inside = p->dilation_w == 1 && x0 >= 0 && x0 + fw <= in_w;
    const int8_t zero = (int8_t)-p->requant.input_offset;
    const int32_t last_y = y0 + (p->filter_h - 1) * p->dilation_h;
    int32_t sum = 0;
    if (columns_inside && y0 >= 0 && last_y < p->in_h) { /* the interior: whole rows, no checks */
        const int32_t run = fw * in_c, row_step = p->dilation_h * in_w * in_c;
        const int8_t *from = image + (y0 * in_w + x0) * in_c;
        for (int32_t fy = 0; fy < p->filter_h; ++fy, from += row_step, taps += run) {
            sum += fg_copy_summing(taps, from, run);
        }
        return sum;
    }
    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t y = y0 + fy * p->dilation_h;
        const int row_inside = y >= 0 && y < p->in_h;
        const int8_t *row = image + (row_inside ? y : 0) * in_w * in_c;
        if (row_inside && columns_inside) {
            sum += fg_copy_summing(taps, row + x0 * in_c, fw * in_c);
            taps += fw * in_c;
            continue;
        }
        for (int32_t fx = 0, x = x0; fx < fw; ++fx, x += p->dilation_w, taps += in_c) {
            if (row_inside && x >= 0 && x < in_w) {
                sum += fg_copy_summing(taps, row + x * in_c, in_c);
            } else {
                memset(taps, zero, (size_t)in_c);
                sum += zero * in_c;
            }
        }
    }
    return sum;
}

/* Rows of fewer taps than this are gathered byte by byte with their sum; longer ones with memcpy, then summed a word at
 * a time (fg_armv6m_window_s8). */
#define FG_SHORT_ROW 16

/* Every output pixel: its window gathered with its sum (short rows of several), else by fg_conv_window_run (a window
 * of one row inside the image read in place). */
static inline __attribute__((always_inline)) void fg_armv6m_windows(const fg_conv2d_params *p, const int8_t *input,
                                                                    int8_t *output, int32_t int4) {
    const int32_t out_c = p->out_c, taps = p->filter_h * p->filter_w * p->in_c;
    const fg_requant_params requant = p->requant;
    int8_t gathered[FG_CONV_GATHER_TAPS] __attribute__((aligned(4))); /* summed a word at a time */
    const int short_rows = p->filter_h > 1 && p->filter_w * p->in_c < FG_SHORT_ROW;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                if (short_rows) {
                    const int32_t sum = fg_armv6m_gather(p, image, oy, ox, gathered);
                    fg_armv6m_window_summed(gathered, taps, sum, p->packed, out_c, &requant, output, int4);
                    continue;
                }
                const int8_t *x = fg_conv_window_run(p, image, oy, ox, gathered);
                (int4 ? fg_armv6m_window_s4 : fg_armv6m_window_s8)(x, taps, p->packed, out_c, 0, &requant, output);
            }
        }
    }
}

void fg_conv2d_folded_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_armv6m_windows(p, input, output, 0);
}

/* fg_conv2d_s4 (4-bit weights, a window of at most FG_CONV_GATHER_TAPS taps): as fg_conv2d_folded_armv6m, the
 * weights as fg_armv6m_window_s4 reads them. */
void fg_conv2d_s4_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    const int pointwise = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                          p->pad_top == 0 && p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w;
    if (pointwise) {
        fg_armv6m_pixels(p, input, output, 1);
    } else {
        fg_armv6m_windows(p, input, output, 1);
    }
}
