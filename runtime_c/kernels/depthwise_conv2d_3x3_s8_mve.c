#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/mve_support.h"

enum { FG_DW_BLOCK_WORDS = 16 + 9 };  /* per four channels: bias, multiplier, left, right, then 9 x 4 taps */

/* acc + tap k of the last channels: x[k] (predicated) times the block's weights w[4 k .. 4 k + 3]. */
#define FG_DW_TAP_Z(k)                                                                            \
    acc = vaddq_s32(acc, vmulq_s32(vldrbq_z_s32(x##k, lanes), vldrbq_s32(w + 4 * (k))))

#define FG_DW_ASM_TAP(k, offset)                        \
    "vldrb.s32 q1, [%[t" #k "]], #4\n"                  \
    "vldrb.s32 q2, [%[pk], #" #offset "]\n"             \
    "vmul.i32 q1, q1, q2\n"                             \
    "vadd.i32 q0, q0, q1\n"
#define FG_DW_ASM_GATHERED_TAP(k, offset)               \
    "vldrb.s32 q1, [%[t" #k "], %q[lane]]\n"           \
    "adds %[t" #k "], %[t" #k "], #4\n"                 \
    "vldrb.s32 q2, [%[pk], #" #offset "]\n"             \
    "vmul.i32 q1, q1, q2\n"                             \
    "vadd.i32 q0, q0, q1\n"

/* Every channel of one output pixel whose taps start at t[0..8] (in the image, or a row of zero points). The blocks of
 * four channels in assembly: GCC spills the nine tap pointers, which here stay in registers (post-incremented). The
 * widening loads and the narrowing store take r0-r7 only (r7 may be the frame pointer): taps 0-6 there, taps 7 and 8
 * and the output through byte-offset gathers and scatters (any base register). */
FG_HOT_LOOP __attribute__((noinline)) static void fg_dw_pixel(const int8_t *const t[9], const int32_t *packed, int32_t channels,
                                    const fg_mve_clamp *clamp, int8_t *out) {
    const int8_t *x0 = t[0], *x1 = t[1], *x2 = t[2], *x3 = t[3], *x4 = t[4], *x5 = t[5], *x6 = t[6], *x7 = t[7];
    const int8_t *x8 = t[8];
    int32_t blocks = channels >> 2;
    if (blocks > 0) {
        const int32x4_t low = clamp->low, high = clamp->high, offset = vdupq_n_s32(clamp->offset);
        const uint32x4_t lane = vidupq_n_u32(0, 1);  /* byte offsets 0..3: tap 8 and the store use any register */
        __asm__ volatile("1:\n"
                         "vldrw.32 q0, [%[pk]]\n"
                         FG_DW_ASM_TAP(0, 64) FG_DW_ASM_TAP(1, 68) FG_DW_ASM_TAP(2, 72)
                         FG_DW_ASM_TAP(3, 76) FG_DW_ASM_TAP(4, 80) FG_DW_ASM_TAP(5, 84)
                         FG_DW_ASM_TAP(6, 88) FG_DW_ASM_GATHERED_TAP(7, 92) FG_DW_ASM_GATHERED_TAP(8, 96)
                         "vldrw.32 q2, [%[pk], #32]\n"
                         "vshl.s32 q0, q0, q2\n"
                         "vldrw.32 q2, [%[pk], #16]\n"
                         "vqrdmulh.s32 q0, q0, q2\n"
                         "vldrw.32 q2, [%[pk], #48]\n"
                         "vand q3, q0, q2\n"
                         "vshr.s32 q3, q3, #31\n"
                         "vqadd.s32 q0, q0, q3\n"
                         "vrshl.s32 q0, q0, q2\n"
                         "vadd.i32 q0, q0, %q[off]\n"
                         "vmax.s32 q0, q0, %q[lo]\n"
                         "vmin.s32 q0, q0, %q[hi]\n"
                         "vstrb.32 q0, [%[out], %q[lane]]\n"
                         "adds %[out], %[out], #4\n"
                         "adds %[pk], %[pk], #100\n"
                         "subs %[n], %[n], #1\n"
                         "bne 1b\n"
                         : [t0] "+l"(x0), [t1] "+l"(x1), [t2] "+l"(x2), [t3] "+l"(x3), [t4] "+l"(x4),
                           [t5] "+l"(x5), [t6] "+l"(x6), [t7] "+r"(x7), [t8] "+r"(x8), [pk] "+r"(packed),
                           [out] "+r"(out), [n] "+r"(blocks)
                         : [off] "w"(offset), [lo] "w"(low), [hi] "w"(high), [lane] "w"(lane)
                         : "q0", "q1", "q2", "q3", "memory", "cc");
    }
    const int32_t n = channels & 3;
    if (n > 0) {  /* the last one to three channels: predicated loads and store */
        const mve_pred16_t lanes = vctp32q((uint32_t)n);
        const fg_mve_quant4 q = fg_mve_load_quant4(packed);
        const int8_t *w = (const int8_t *)(packed + 16);
        int32x4_t acc = q.bias;
        FG_DW_TAP_Z(0);
        FG_DW_TAP_Z(1);
        FG_DW_TAP_Z(2);
        FG_DW_TAP_Z(3);
        FG_DW_TAP_Z(4);
        FG_DW_TAP_Z(5);
        FG_DW_TAP_Z(6);
        FG_DW_TAP_Z(7);
        FG_DW_TAP_Z(8);
        vstrbq_p_s32(out, fg_mve_requantize(acc, &q, clamp), lanes);
    }
}

/* The taps of the window at (y0, x0): pointers into the image, or to a row of zero points in the padding. */
static void fg_dw_taps(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                       const int8_t *zero_points, const int8_t *t[9]) {
    const int32_t channels = p->in_c, row_bytes = p->in_w * channels;
    for (int32_t ky = 0, k = 0; ky < 3; ++ky) {
        const int32_t y = y0 + ky * p->dilation_h;
        for (int32_t kx = 0; kx < 3; ++kx, ++k) {
            const int32_t x = x0 + kx * p->dilation_w;
            const int inside = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w;
            t[k] = inside ? image + y * row_bytes + x * channels : zero_points;
        }
    }
}

/* One pixel at a time, all its channels before the next (the order ops/overlap.py's allowance assumes). */
void fg_depthwise_conv2d_3x3_s8_mve(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->in_c, row_bytes = p->in_w * channels;
    const int32_t row_step = p->dilation_h * row_bytes, col_step = p->dilation_w * channels;
    const fg_mve_clamp clamp = fg_mve_make_clamp(&p->requant);
    const int32_t *packed = (const int32_t *)p->packed;
    /* Output columns [first, end) have their windows' columns inside the image. */
    const int32_t first = (p->pad_left + p->stride_w - 1) / p->stride_w;
    const int32_t last_x = p->in_w - 1 - 2 * p->dilation_w + p->pad_left;
    const int32_t end = last_x < 0 ? 0 : last_x / p->stride_w + 1;
    int8_t zero_points[FG_MVE_DEPTHWISE_MAX];
    fg_mve_fill_s8(zero_points, (int8_t)-p->requant.input_offset, channels);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * row_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h;
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += channels) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                const int8_t *t[9];
                if (rows_inside && ox >= first && ox < end) {
                    t[0] = image + y0 * row_bytes + x0 * channels;
                    t[3] = t[0] + row_step;
                    t[6] = t[3] + row_step;
                    for (int32_t k = 0; k < 9; k += 3) {
                        t[k + 1] = t[k] + col_step;
                        t[k + 2] = t[k + 1] + col_step;
                    }
                } else {
                    fg_dw_taps(p, image, y0, x0, zero_points, t);
                }
                fg_dw_pixel(t, packed, channels, &clamp, output);
            }
        }
    }
}

#endif /* __ARM_FEATURE_MVE */
