#include <string.h>

#include "fg/conv2d.h"
#include "fg/depthwise_conv2d.h"
#include "fg/support/hot_loop.h"
#include "fg/support/requantize.h"
#include "fg/support/weights_s4.h"

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#endif

/* Output channels [c, c + count) (count <= 4) of one output pixel, their sums in registers over the window (any depth
 * multiplier or channel count): a tap's channels are consecutive nibbles, so with depth multiplier 1, four whole
 * channels and an even channel count the four weights are the two bytes from nibble (tap * out_c + c) on, c being a
 * multiple of 4. A tap in the padding reads the input zero point, which the folded bias subtracts again. */
FG_HOT_LOOP static void channel_group(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y_origin,
                                      int32_t x_origin, int32_t c, int32_t count, uint32_t acc[4]) {
    const int32_t m = p->depth_multiplier, out_c = p->in_c * m, zero_point = -p->requant.input_offset;
    const uint8_t *w = (const uint8_t *)p->packed;
    const int paired = m == 1 && count == 4 && (out_c & 1) == 0;
    int32_t x_of[4];
    for (int32_t j = 0; j < 4; ++j) {
        x_of[j] = (c + (j < count ? j : 0)) / m;
    }
    uint32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t y = y_origin + fy * p->dilation_h;
        const int row_inside = y >= 0 && y < p->in_h;
        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
            const int32_t x = x_origin + fx * p->dilation_w, k = (fy * p->filter_w + fx) * out_c + c;
            int32_t x0 = zero_point, x1 = zero_point, x2 = zero_point, x3 = zero_point;
            if (row_inside && x >= 0 && x < p->in_w) {
                const int8_t *pixel = image + (y * p->in_w + x) * p->in_c;
                x0 = pixel[x_of[0]], x1 = pixel[x_of[1]], x2 = pixel[x_of[2]], x3 = pixel[x_of[3]];
            }
            if (paired) {
                const int8_t *b = (const int8_t *)w + (k >> 1);
                a0 += (uint32_t)(x0 * fg_low_s4(b[0]));
                a1 += (uint32_t)(x1 * fg_high_s4(b[0]));
                a2 += (uint32_t)(x2 * fg_low_s4(b[1]));
                a3 += (uint32_t)(x3 * fg_high_s4(b[1]));
            } else {  /* the spare sums of a short group are never stored */
                a0 += (uint32_t)(x0 * fg_nibble_s4(w, k));
                a1 += (uint32_t)(x1 * (count > 1 ? fg_nibble_s4(w, k + 1) : 0));
                a2 += (uint32_t)(x2 * (count > 2 ? fg_nibble_s4(w, k + 2) : 0));
                a3 += (uint32_t)(x3 * (count > 3 ? fg_nibble_s4(w, k + 3) : 0));
            }
        }
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* acc[j] += sum over the taps t of x[t * x_step + j] * w(t)[j], j < 4, w(t) the two weight bytes at w + t * w_step. */
#if defined(__ARM_FEATURE_MVE)
/* Four channels per vector: the inputs widened to int32 lanes, the two weight bytes gathered into the lanes of their
 * two channels each and their nibbles sign-extended by a shift left (28 or 24) and right (28); VMUL, VADD (MVE
 * multiplies and accumulates vector by vector only across lanes). */
FG_HOT_LOOP static void group_taps(const int8_t *x, int32_t x_step, const int8_t *w, int32_t w_step, int32_t taps,
                                   uint32_t *acc) {
    static const uint32_t twice[4] = {0, 0, 1, 1};
    static const int32_t shifts[4] = {28, 24, 28, 24};
    const uint32x4_t offsets = vldrwq_u32(twice);
    const int32x4_t lane_shifts = vldrwq_s32(shifts);
    int32x4_t sums = vldrwq_s32((const int32_t *)acc);
    for (int32_t t = 0; t < taps; ++t, x += x_step, w += w_step) {
        const int32x4_t nibbles = vshrq_n_s32(vshlq_s32(vldrbq_gather_offset_s32(w, offsets), lane_shifts), 28);
        sums = vaddq_s32(sums, vmulq_s32(vldrbq_s32(x), nibbles));
    }
    vstrwq_s32((int32_t *)acc, sums);
}
#else
FG_HOT_LOOP static void group_taps(const int8_t *x, int32_t x_step, const int8_t *w, int32_t w_step, int32_t taps,
                                   uint32_t *acc) {
    uint32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (int32_t t = 0; t < taps; ++t, x += x_step, w += w_step) {
        const int32_t low = w[0], high = w[1];
        a0 += (uint32_t)(x[0] * fg_low_s4(low));
        a1 += (uint32_t)(x[1] * fg_high_s4(low));
        a2 += (uint32_t)(x[2] * fg_low_s4(high));
        a3 += (uint32_t)(x[3] * fg_high_s4(high));
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}
#endif

/* Depth multiplier 1, whole groups of four channels, a window of at most FG_DEPTHWISE_S4_TAPS taps: the window's
 * channels [chunk, chunk + count) gathered into patch[tap][count] (the input zero point in the padding), then four
 * channels per pass over the taps, their four weights the two bytes from nibble (tap * out_c + c) on; acc is set to
 * the folded bias and then the sums. */
#define FG_DEPTHWISE_S4_TAPS (FG_CONV_GATHER_TAPS / FG_REQUANT_CHUNK)

FG_HOT_LOOP static void gathered_groups(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y_origin,
                                        int32_t x_origin, int32_t chunk, int32_t count, uint32_t *acc) {
    int8_t patch[FG_CONV_GATHER_TAPS];
    const int32_t taps = p->filter_h * p->filter_w, out_c = p->in_c;
    const uint32_t padding = (uint8_t)-p->requant.input_offset * 0x01010101u;
    int8_t *to = patch;
    for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t y = y_origin + fy * p->dilation_h;
        for (int32_t fx = 0; fx < p->filter_w; ++fx, to += count) {
            const int32_t x = x_origin + fx * p->dilation_w;
            const int inside = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w;
            const int8_t *from = inside ? image + (y * p->in_w + x) * out_c + chunk : NULL;
            for (int32_t i = 0; i < count; i += 4) {  /* count is a multiple of 4: word copies, no library call */
                uint32_t word = padding;
                if (inside) {
                    memcpy(&word, from + i, sizeof word);
                }
                memcpy(to + i, &word, sizeof word);
            }
        }
    }
    memcpy(acc, p->folded_bias + chunk, (size_t)count * sizeof *acc);
    const int8_t *weights = (const int8_t *)p->packed + chunk / 2;
    for (int32_t k = 0; k < count; k += 4) {
        group_taps(patch + k, count, weights + k / 2, out_c / 2, taps, acc + k);
    }
}

void fg_depthwise_conv2d_s4(const fg_depthwise_conv2d_params *p, const int8_t *input, const int8_t *filter,
                            int8_t *output) {
    const int32_t in_c = p->in_c, out_c = in_c * p->depth_multiplier;
    const int gathered = p->depth_multiplier == 1 && out_c % 4 == 0 &&
                         p->filter_h * p->filter_w <= FG_DEPTHWISE_S4_TAPS;
    uint32_t acc[FG_REQUANT_CHUNK];
    (void)filter;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y_origin = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += out_c) {
                const int32_t x_origin = ox * p->stride_w - p->pad_left;
                for (int32_t chunk = 0; chunk < out_c; chunk += FG_REQUANT_CHUNK) {
                    const int32_t count = out_c - chunk < FG_REQUANT_CHUNK ? out_c - chunk : FG_REQUANT_CHUNK;
                    if (gathered) {
                        gathered_groups(p, image, y_origin, x_origin, chunk, count, acc);
                    }
                    for (int32_t k = 0; k < count && !gathered; k += 4) {
                        for (int32_t j = 0; j < 4; ++j) {
                            acc[k + j] = (uint32_t)p->folded_bias[chunk + (k + j < count ? k + j : k)];
                        }
                        channel_group(p, image, y_origin, x_origin, chunk + k, count - k < 4 ? count - k : 4,
                                      acc + k);
                    }
                    fg_requantize_run_s8(&p->requant, acc, chunk, count, output + chunk);
                }
            }
        }
    }
}
