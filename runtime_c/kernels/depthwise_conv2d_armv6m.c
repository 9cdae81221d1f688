/* DEPTHWISE_CONV_2D 3x3, depth multiplier 1, stride 1 or 2, no dilation, on Armv6-M. The input rows the windows read
 * are copied, as they are first needed, into a ring of three rows per channel ([channel][3][pitch], unsigned bytes
 * x + 128, the zero point in the padding): each tap is then an LDRB at a constant offset from one of three row
 * pointers, and each input row is copied once. Output rows are computed channel by channel, each output through the
 * Thumb-1 output stage's arithmetic with the channel's constants held over the row. The products hold x w + 128 w:
 * the lowering took 128 times each channel's weight sum off its bias. An output row is written once the input rows
 * it reads are in the ring; the forward overlap of firmware_gen/ops/overlap.py keeps the later rows' inputs intact.
 * params->packed: the layer's constants and channels (fg_armv6m_layer), then per channel its nine weights and its
 * bias (the folded bias less 128 times the weights' sum) as int32. */
#include <string.h>

#include "fg/armv6m_support.h"
#include "fg/depthwise_conv2d.h"
#include "fg/hot_loop.h"
#include "fg/variants_armv6m.h"

typedef struct {
    uint8_t *ring;     /* [channel][3][pitch] */
    int32_t pitch;
    int32_t held[3];   /* the input row each slot holds */
} fg_dw_ring;

/* Input row y (any y: outside the image, the zero point) of every channel into slot y mod 3. */
static void fg_dw_fill(const fg_depthwise_conv2d_params *p, const int8_t *image, fg_dw_ring *r, int32_t y) {
    const int32_t channels = p->in_c, in_w = p->in_w, pitch = r->pitch, step = 3 * pitch;
    const int32_t slot = (y % 3 + 3) % 3;
    const uint8_t padding = (uint8_t)(128 - p->requant.input_offset);
    uint8_t *row = r->ring + slot * pitch;
    r->held[slot] = y;
    if (y < 0 || y >= p->in_h) {
        for (int32_t c = 0; c < channels; ++c) {
            memset(row + c * step, padding, (size_t)pitch);
        }
        return;
    }
    const int8_t *source = image + y * in_w * channels;
    for (int32_t c = 0; c < channels; ++c) {
        uint8_t *to = row + c * step;
        memset(to, padding, (size_t)p->pad_left);
        memset(to + p->pad_left + in_w, padding, (size_t)(pitch - p->pad_left - in_w));
    }
    for (int32_t x = 0; x < in_w; ++x, source += channels) {
        uint8_t *to = row + p->pad_left + x;
        for (int32_t c = 0; c < channels; ++c, to += step) {
            *to = (uint8_t)(source[c] + 128);
        }
    }
}

/* Output row `out` (outputs `step` bytes apart) of one channel: the windows' nine taps from the rows r0..r2, bias and
 * weights w, then the output stage of fg_armv6m_requantize_s8 with the channel's constants k. */
static FG_HOT_LOOP void fg_dw_row(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, const int32_t *w,
                                  int32_t stride, int32_t n, const fg_armv6m_channel *k, const fg_armv6m_layer *layer,
                                  int8_t *out, int32_t step) {
    const int32_t bias = w[9];
    const int32_t multiplier = (int32_t)((uint32_t)k->high << 16 | (uint32_t)k->low);
    const int32_t mask = k->mask, half = k->half, right = k->right;
    const int32_t zero = layer->zero, low = layer->low, high = layer->high;
    for (int32_t i = 0; i < n; ++i, r0 += stride, r1 += stride, r2 += stride, out += step) {
        const int32_t taps = w[0] * r0[0] + w[1] * r0[1] + w[2] * r0[2] + w[3] * r1[0] + w[4] * r1[1] +
                             w[5] * r1[2] + w[6] * r2[0] + w[7] * r2[1] + w[8] * r2[2];
        const int32_t acc = (int32_t)((uint32_t)bias + (uint32_t)taps); /* wraps as TFLite's int32 sum does */
        const int32_t h = fg_high_mul_halves(acc, multiplier);
        const int32_t v = (h >> right) + (int32_t)((uint32_t)((h & mask) + half + (h >> 31)) >> right) + zero;
        *out = (int8_t)(v < low ? low : v > high ? high : v);
    }
}

void fg_depthwise_conv2d_armv6m(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->in_c, out_w = p->out_w, stride = p->stride_w;
    const fg_armv6m_layer *layer = p->packed;
    const fg_armv6m_channel *constants = fg_armv6m_channels(p->packed);
    const int32_t *weights = (const int32_t *)(constants + channels);
    const int32_t reach = (out_w - 1) * stride + 3, inside = p->pad_left + p->in_w;
    const int32_t pitch = reach > inside ? reach : inside;
    uint8_t ring[channels * 3 * pitch]; /* at most FG_DW_RING_BYTES (the lowering checks); no more than the layer needs */
    fg_dw_ring r = {ring, pitch, {0, 0, 0}};
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        r.held[0] = r.held[1] = r.held[2] = -1000000;  /* no row */
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const uint8_t *rows[3];
            for (int32_t dy = 0; dy < 3; ++dy) {
                const int32_t slot = ((y0 + dy) % 3 + 3) % 3;
                if (r.held[slot] != y0 + dy) {
                    fg_dw_fill(p, image, &r, y0 + dy);
                }
                rows[dy] = ring + slot * r.pitch;
            }
            int8_t *out = output + (b * p->out_h + oy) * out_w * channels;
            for (int32_t c = 0; c < channels; ++c) {
                const int32_t at = c * 3 * r.pitch;
                fg_dw_row(rows[0] + at, rows[1] + at, rows[2] + at, weights + 10 * c, stride, out_w, constants + c,
                          layer, out + c, channels);
            }
        }
    }
}
