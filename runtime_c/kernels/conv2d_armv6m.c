/* CONV_2D on Armv6-M (fg/armv6m_support.h): one output pixel at a time, every group of eight channels from the
 * window's taps copied into one run (with the zero point in the padding), its outputs stored
 * after the pixel's inputs are read (the forward overlap of firmware_gen/ops/overlap.py). params->packed holds the
 * layer's weights as fg_armv6m_window_s8 reads them; params->blocked keeps only its geometry (rows, run). */
#include <string.h>

#include "fg/armv6m_support.h"
#include "fg/conv2d.h"

void fg_conv2d_pointwise_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const fg_requant_params requant = p->requant;
    (void)filter;
    for (int32_t i = 0; i < pixels; ++i) {
        const int8_t *const x = input + i * in_c;
        fg_armv6m_window_s8(&x, 1, in_c, p->packed, out_c, p->folded_bias, &requant,
                            output + i * out_c);
    }
}

void fg_conv2d_folded_armv6m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, out_c = p->out_c;
    const int32_t window_rows = p->blocked.rows, run = p->blocked.run;
    const fg_requant_params requant = p->requant;
    int8_t gathered[FG_CONV_GATHER_TAPS];
    const int8_t *rows[FG_CONV_MAX_ROWS];
    (void)filter;
    for (int32_t i = 0; i < pixels; ++i) {
        fg_conv_window_rows(p, input, i, gathered, rows);
        for (int32_t r = 0; r < window_rows && window_rows > 1; ++r) {
            if (rows[r] != gathered + r * run) {  /* a row inside the image */
                memcpy(gathered + r * run, rows[r], (size_t)run);
            }
        }
        /* one run of the whole window: a call of the dot loop per row would cost more than the copy */
        const int8_t *const x = window_rows > 1 ? gathered : rows[0];
        fg_armv6m_window_s8(&x, 1, window_rows * run, p->packed, out_c, p->folded_bias, &requant,
                            output + i * out_c);
    }
}
