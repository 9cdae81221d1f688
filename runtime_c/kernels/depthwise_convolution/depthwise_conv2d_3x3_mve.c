#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"
#include "fg/isa/mve_depthwise.h"

enum { FG_DW_BLOCK_WORDS = 16 + 36 };  /* per four channels: bias, multiplier, left, right, then 9 x 4 int32 taps */
/* Per four channels in the gathering layout: the quant block, taps 0-7 of each channel as int16, tap 8 as int32. */
enum { FG_DW_GATHER_BLOCK_WORDS = 16 + 16 + 4 };

/* acc + tap k of the last channels c..: t[k] + c (predicated) times the block's weights w[4 k .. 4 k + 3] (int32). */
#define FG_DW_TAP_Z(k)                                                                            \
    acc = vaddq_s32(acc, vmulq_s32(vldrbq_z_s32(t[k] + c, lanes), vldrwq_s32(w + 4 * (k))))

#define FG_DW_ASM_TAP(k, offset)                        \
    "vldrb.s32 q1, [%[t" #k "]], #4\n"                  \
    "vldrw.32 q2, [%[pk], #" #offset "]\n"             \
    "vmul.i32 q1, q1, q2\n"                             \
    "vadd.i32 q0, q0, q1\n"
/* Taps 7 and 8 from tap 6's pointer (already past the block) and byte offsets. */
#define FG_DW_ASM_GATHERED_TAP(k, offset)               \
    "vldrb.s32 q1, [%[t6], %q[lane" #k "]]\n"           \
    "vldrw.32 q2, [%[pk], #" #offset "]\n"             \
    "vmul.i32 q1, q1, q2\n"                             \
    "vadd.i32 q0, q0, q1\n"

/* What the assembly loop reads and updates in memory. */
typedef struct {
    const int32_t *packed;  /* 0: the first block */
    int32_t blocks;         /* 4: full blocks of four channels */
    int32_t advance;        /* 8: from a tap's last block to its next pixel */
    int32_t pixels;         /* 12: left to do */
} fg_dw_run_state;

/* `pixels` output pixels (stride pixel_step bytes in the input, contiguous in the output) whose first one's taps start
 * at t[0..8] (in the image, or a row of zero points when pixels is 1): every channel of each before the next. The
 * blocks of four channels in assembly, taps 0-6 in registers (post-incremented), then on to the next pixel. The
 * widening loads and the narrowing store take r0-r7 only (and r7 may be the frame pointer): taps 7 and 8 are
 * gathered from tap 6's pointer (their distance from it is the same for every pixel of a run: inside the image, or a
 * lone pixel), the output scattered with byte offsets 0..3. With channels not a multiple of four, pixels must be 1
 * (fg_dw_last_channels does the rest). */
FG_HOT_LOOP __attribute__((noinline)) static void fg_dw_run(const int8_t *const t[9], const int32_t *packed,
                                                            int32_t channels, int32_t pixels, int32_t pixel_step,
                                                            const fg_mve_clamp *clamp, int8_t *out) {
    const int8_t *x0 = t[0], *x1 = t[1], *x2 = t[2], *x3 = t[3], *x4 = t[4], *x5 = t[5], *x6 = t[6], *x7 = t[7];
    const int8_t *x8 = t[8];
    const int32_t blocks = channels >> 2;
    if (blocks > 0) {
        fg_dw_run_state st = {packed, blocks, pixel_step - 4 * blocks, pixels};
        const int32x4_t low = clamp->low, high = clamp->high;
        const uint32x4_t lane = vidupq_n_u32(0, 1);
        /* as addresses: at the border taps 7 and 8 may point into the zero-point row */
        const uint32x4_t lane7 = vaddq_n_u32(lane, (uint32_t)((uintptr_t)x7 - (uintptr_t)x6 - 4u));
        const uint32x4_t lane8 = vaddq_n_u32(lane, (uint32_t)((uintptr_t)x8 - (uintptr_t)x6 - 4u));
        const int32_t *pk;
        int32_t n;
        __asm__ volatile("3:\n"
                         "ldr %[pk], [%[st], #0]\n"
                         "ldr %[n], [%[st], #4]\n"
                         "1:\n"
                         "vldrw.32 q0, [%[pk]]\n"
                         FG_DW_ASM_TAP(0, 64) FG_DW_ASM_TAP(1, 80) FG_DW_ASM_TAP(2, 96)
                         FG_DW_ASM_TAP(3, 112) FG_DW_ASM_TAP(4, 128) FG_DW_ASM_TAP(5, 144)
                         FG_DW_ASM_TAP(6, 160) FG_DW_ASM_GATHERED_TAP(7, 176) FG_DW_ASM_GATHERED_TAP(8, 192)
                         "vldrw.32 q2, [%[pk], #32]\n"
                         "vshl.s32 q0, q0, q2\n"
                         "vldrw.32 q2, [%[pk], #16]\n"
                         "vqrdmulh.s32 q0, q0, q2\n"
                         "vldrw.32 q2, [%[pk], #48]\n"
                         "vand q1, q0, q2\n"
                         "vshr.s32 q1, q1, #31\n"
                         "vqadd.s32 q0, q0, q1\n"
                         "vrshl.s32 q0, q0, q2\n"
                         "vadd.i32 q0, q0, %[off]\n"
                         "vmax.s32 q0, q0, %q[lo]\n"
                         "vmin.s32 q0, q0, %q[hi]\n"
                         "vstrb.32 q0, [%[out], %q[lane]]\n"
                         "adds %[out], %[out], #4\n"
                         "adds %[pk], %[pk], #208\n"
                         "subs %[n], %[n], #1\n"
                         "bne 1b\n"
                         "ldr %[n], [%[st], #8]\n"
                         "add %[t0], %[t0], %[n]\n"
                         "add %[t1], %[t1], %[n]\n"
                         "add %[t2], %[t2], %[n]\n"
                         "add %[t3], %[t3], %[n]\n"
                         "add %[t4], %[t4], %[n]\n"
                         "add %[t5], %[t5], %[n]\n"
                         "add %[t6], %[t6], %[n]\n"
                         "ldr %[n], [%[st], #12]\n"
                         "subs %[n], %[n], #1\n"
                         "str %[n], [%[st], #12]\n"
                         "bne 3b\n"
                         : [t0] "+l"(x0), [t1] "+l"(x1), [t2] "+l"(x2), [t3] "+l"(x3), [t4] "+l"(x4),
                           [t5] "+l"(x5), [t6] "+l"(x6), [pk] "=&r"(pk), [out] "+r"(out), [n] "=&r"(n)
                         : [st] "r"(&st), [off] "r"(clamp->offset), [lo] "w"(low), [hi] "w"(high),
                           [lane] "w"(lane), [lane7] "w"(lane7), [lane8] "w"(lane8)
                         : "q0", "q1", "q2", "memory", "cc");
        (void)pk;
    }
}

#define FG_DW_GATHER_MASKED(offset, acc)            \
    "vpst\n"                                       \
    "vldrbt.s16 q0, [%[x], %q[taps]]\n"            \
    "vpsel q0, q0, %q[zp]\n"                       \
    "vldrh.16 q1, [%[pk], #" #offset "]\n"         \
    "vmladava.s16 " acc ", q0, q1\n"               \
    "adds %[x], %[x], #1\n"
FG_DW_GATHERED_RUN(fg_dw_gathered_run_shifted, FG_DW_LEFT_SHIFT, FG_DW_SIGN)
FG_DW_GATHERED_RUN(fg_dw_gathered_run, "", FG_DW_SIGN)
FG_DW_GATHERED_RUN(fg_dw_gathered_run_negative, "", FG_DW_SIGN_NEGATIVE)
static fg_dw_run_loop *const fg_dw_gathered_runs[3] = {fg_dw_gathered_run, fg_dw_gathered_run_shifted,
                                                       fg_dw_gathered_run_negative};

/* FG_DW_GATHERED_BLOCK where every channel shifts right (no LEFT_SHIFT, FG_MVE_ROUND2_NEGATIVE's arithmetic) in the
 * order a hill climb over dependency-preserving moves found cheapest in llvm-mca's M55 model (64 cycles a block
 * before its branch, 69 in FG_DW_GATHERED_BLOCK's order): the weight loads before the bias LDM's write-back at
 * offsets 16 higher, the multipliers and shifts after pk's advance at offsets 128 lower. */
#define FG_DW_GATHERED_BLOCK_NEGATIVE                      \
    "vldrb.s16 q1, [%[x], %q[tapsb]]\n"                    \
    "ldm %[pk], {r8, r10, r12, lr}\n"                      \
    "vldrh.16 q2, [%[pk], #64]\n"                          \
    "vmladava.s16 r8, q1, q2\n"                            \
    "vldrb.s16 q0, [%[x], %q[taps]]\n"                     \
    "vldrh.16 q3, [%[pk], #80]\n"                          \
    "adds %[x], %[x], #1\n"                                \
    "ldm %[pk]!, {r0, r2, r4, r6}\n"                       \
    "vldrb.s16 q1, [%[x], %q[tapsb]]\n"                    \
    "vmladava.s16 r0, q0, q2\n"                            \
    "vldrb.s16 q0, [%[x], %q[taps]]\n"                     \
    "vmladava.s16 r10, q1, q3\n"                           \
    "vldrh.16 q2, [%[pk], #80]\n"                          \
    "adds %[x], %[x], #1\n"                                \
    "vldrb.s16 q1, [%[x], %q[tapsb]]\n"                    \
    "vmladava.s16 r2, q0, q3\n"                            \
    "vldrb.s16 q0, [%[x], %q[taps]]\n"                     \
    "vmladava.s16 r12, q1, q2\n"                           \
    "vldrh.16 q3, [%[pk], #96]\n"                          \
    "adds %[x], %[x], #1\n"                                \
    "vldrb.s16 q1, [%[x], %q[tapsb]]\n"                    \
    "vmladava.s16 r4, q0, q2\n"                            \
    "vldrb.s16 q0, [%[x], %q[taps]]\n"                     \
    "vmladava.s16 lr, q1, q3\n"                            \
    "vldrw.32 q2, [%[pk], #112]\n"                         \
    "adds %[x], %[x], #1\n"                                \
    "vldrb.s32 q1, [%[x], %q[tap8b]]\n"                    \
    "vmladava.s16 r6, q0, q3\n"                            \
    "vldrb.s32 q0, [%[x], %q[tap8]]\n"                     \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"      \
    "adds %[pk], %[pk], #128\n"                            \
    "vmul.i32 q1, q1, q2\n"                                \
    "vldrw.32 q3, [%[st], #16]\n"                          \
    "vmul.i32 q0, q0, q2\n"                                \
    "vadd.i32 q1, q1, q3\n"                                \
    "vldrw.32 q2, [%[st]]\n"                               \
    "vadd.i32 q0, q0, q2\n"                                \
    "vldrw.32 q2, [%[pk], #-128]\n"                        \
    "vqrdmulh.s32 q0, q0, q2\n"                            \
    "vshr.s32 q3, q0, #31\n"                               \
    "vqrdmulh.s32 q1, q1, q2\n"                            \
    "vqadd.s32 q0, q0, q3\n"                               \
    "vshr.s32 q3, q1, #31\n"                               \
    "vldrw.32 q2, [%[pk], #-96]\n"                         \
    "vrshl.s32 q0, q0, q2\n"                               \
    "ldr r0, [%[st], #48]\n"                               \
    "vqadd.s32 q1, q1, q3\n"                               \
    "vrshl.s32 q1, q1, q2\n"                               \
    "vadd.i32 q0, q0, r0\n"                                \
    "vldrw.32 q2, [%[st], #80]\n"                          \
    "vadd.i32 q1, q1, r0\n"                                \
    "vldrw.32 q3, [%[st], #64]\n"                          \
    "vmax.s32 q0, q0, q3\n"                                \
    "vmin.s32 q0, q0, q2\n"                                \
    "subs %[n], %[n], #1\n"                                \
    "vmax.s32 q1, q1, q3\n"                                \
    "vstrb.32 q0, [%[out]], #4\n"                          \
    "vmin.s32 q1, q1, q2\n"                                \
    "vstrb.32 q1, [%[second]], #4\n"

FG_DW_GATHERED_PAIRS(fg_dw_gathered_pairs_shifted, FG_DW_GATHERED_BLOCK(FG_DW_LEFT_SHIFT2, FG_MVE_ROUND2_DIVIDE),
                     FG_DW_PAIR_BESIDE)
FG_DW_GATHERED_PAIRS(fg_dw_gathered_pairs, FG_DW_GATHERED_BLOCK("", FG_MVE_ROUND2_DIVIDE), FG_DW_PAIR_BESIDE)
FG_DW_GATHERED_PAIRS(fg_dw_gathered_pairs_negative, FG_DW_GATHERED_BLOCK_NEGATIVE, FG_DW_PAIR_BESIDE)
FG_DW_GATHERED_PAIRS(fg_dw_gathered_below_shifted, FG_DW_GATHERED_BLOCK(FG_DW_LEFT_SHIFT2, FG_MVE_ROUND2_DIVIDE),
                     FG_DW_PAIR_BELOW)
FG_DW_GATHERED_PAIRS(fg_dw_gathered_below, FG_DW_GATHERED_BLOCK("", FG_MVE_ROUND2_DIVIDE), FG_DW_PAIR_BELOW)
FG_DW_GATHERED_PAIRS(fg_dw_gathered_below_negative, FG_DW_GATHERED_BLOCK_NEGATIVE, FG_DW_PAIR_BELOW)
static fg_dw_pairs_loop *const fg_dw_gathered_pairs_kinds[3] = {fg_dw_gathered_pairs, fg_dw_gathered_pairs_shifted,
                                                                fg_dw_gathered_pairs_negative};
static fg_dw_pairs_loop *const fg_dw_gathered_below_kinds[3] = {fg_dw_gathered_below, fg_dw_gathered_below_shifted,
                                                                fg_dw_gathered_below_negative};

FG_DW_PAIRS_FN(fg_dw_pairs, fg_dw_gathered_pairs_kinds, fg_dw_gathered_below_kinds)

/* One output pixel at the border as fg_dw_gathered_run: `first` is where its top left tap would be; taps 0-7 in the
 * padding are masked off (`inside`, two predicate bits per int16 lane) and read the zero point, tap 8 is gathered
 * from tap8 (per lane: the image or the zero-point row). VPR is saved and restored around the loop. */
#define FG_DW_GATHERED_BORDER(NAME, LEFT_SHIFT) \
FG_HOT_LOOP __attribute__((noinline)) static void NAME(const int8_t *first, const int32_t *packed, \
                                                                        int32_t channels, uint16x8_t tap_offsets, \
                                                                        uint32x4_t tap8, mve_pred16_t inside, \
                                                                        int8_t zero_point, const fg_mve_clamp *clamp, \
                                                                        int8_t *out) { \
    fg_dw_gather_state st = {{0, 0, 0, 0}, packed, channels >> 2, 0, 1}; \
    const int32x4_t low = clamp->low, high = clamp->high; \
    const int16x8_t zero_points = vdupq_n_s16(zero_point); \
    const int32_t *pk = packed; \
    int32_t n = channels >> 2, saved, mask = inside; \
    __asm__ volatile("vmrs %[saved], p0\n" \
                     "vmsr p0, %[mask]\n" \
                     "1:\n" \
                     "ldm %[pk]!, {r0, r2, r4, r6}\n" \
                     FG_DW_GATHER_MASKED(48, "r0") FG_DW_GATHER_MASKED(64, "r2") FG_DW_GATHER_MASKED(80, "r4") \
                     FG_DW_GATHER_MASKED(96, "r6") \
                     FG_DW_GATHER_BLOCK_END(LEFT_SHIFT, FG_DW_SIGN) \
                     "vmsr p0, %[saved]\n" \
                     : [x] "+r"(first), [out] "+l"(out), [pk] "+r"(pk), [n] "+r"(n), [saved] "=&r"(saved) \
                     : [st] "r"(&st), [off] "r"(clamp->offset), [lo] "w"(low), [hi] "w"(high), \
                       [taps] "w"(tap_offsets), [tap8] "w"(tap8), [zp] "w"(zero_points), [mask] "r"(mask) \
                     : "r0", "r2", "r4", "r6", "q0", "q1", "q2", "memory", "cc"); \
}
FG_DW_GATHERED_BORDER(fg_dw_gathered_border_shifted, FG_DW_LEFT_SHIFT)
FG_DW_GATHERED_BORDER(fg_dw_gathered_border, "")

/* Channels c .. c + n - 1 (n < 4, the last block) of one output pixel whose taps start at t[0..8]: predicated loads
 * and store. packed is that block's. */
FG_HOT_LOOP static void fg_dw_last_channels(const int8_t *const t[9], const int32_t *packed, int32_t c, int32_t n,
                                            const fg_mve_clamp *clamp, int8_t *out) {
    const mve_pred16_t lanes = vctp32q((uint32_t)n);
    const fg_mve_quant4 q = fg_mve_load_quant4(packed);
    const int32_t *w = packed + 16;
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
    vstrbq_p_s32(out + c, fg_mve_requantize(acc, &q, clamp), lanes);
}

/* The border pixel whose window's top left tap is at (y0, x0), through fg_dw_gathered_border: the predicate of its
 * taps 0-7 inside the image, and tap 8's offsets (into the image, or to the zero-point row). */
static void fg_dw_border(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                         const int8_t *zero_points, const int32_t *gathering, uint16x8_t tap_offsets,
                         uint32_t tap8_offset, int shifts_left, const fg_mve_clamp *clamp, int8_t *out) {
    const int32_t channels = p->in_c, row_bytes = p->in_w * channels;
    const uintptr_t first = (uintptr_t)image + (uintptr_t)(intptr_t)(y0 * row_bytes + x0 * channels);
    uint32_t inside = 0;
    int tap8_inside = 0;
    for (int32_t k = 0; k < 9; ++k) {
        const int32_t y = y0 + (k / 3) * p->dilation_h, x = x0 + (k % 3) * p->dilation_w;
        const int in = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w;
        if (k < 8) {
            inside |= in ? 3u << (2 * k) : 0u;
        } else {
            tap8_inside = in;
        }
    }
    const uint32_t to_tap8 = tap8_inside ? tap8_offset : (uint32_t)((uintptr_t)zero_points - first);
    const uint32x4_t tap8 = vaddq_n_u32(vidupq_n_u32(0, 1), to_tap8 - 4u);  /* from past the block */
    (shifts_left ? fg_dw_gathered_border_shifted : fg_dw_gathered_border)(
        (const int8_t *)first, gathering, channels, tap_offsets, tap8, (mve_pred16_t)inside, zero_points[0], clamp,
        out);
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

/* Whether a layer with padding runs through bands: its channels a multiple of four, a band that fits the stack. */
static int fg_dw_banded_fits(const fg_depthwise_conv2d_params *p) {
    const int32_t bottom = (p->out_h - 1) * p->stride_h - p->pad_top + 2 * p->dilation_h;
    const int32_t right = fg_dw_band_width(p) - p->pad_left;
    const int padded = p->pad_top > 0 || p->pad_left > 0 || bottom >= p->in_h || right > p->in_w;
    return padded && (p->in_c & 3) == 0 && 3 * fg_dw_band_width(p) * p->in_c <= FG_DW_BAND_MAX;
}

FG_DW_BANDED(fg_dw_banded, (const int32_t *)p->packed + FG_DW_BLOCK_WORDS * (channels >> 2),
             FG_DW_GATHER_BLOCK_WORDS, fg_dw_pairs, fg_dw_gathered_runs)

/* One pixel at a time, all its channels before the next (the order ops/overlap.py's allowance assumes). */
__attribute__((noinline)) static void fg_dw_direct(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                                   int8_t *output) {
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
    const int32_t pixel_step = p->stride_w * channels;
    const int runs = (channels & 3) == 0;  /* interior pixels of a row in one call */
    /* The gathering layout follows the first; its tap offsets must fit in 16 bits. */
    const int gather = runs && 2 * (row_step + col_step) < 65536;
    const int pairs_fit = 2 * (row_step + col_step) + pixel_step < 65536;  /* pixel B's tap offsets too */
    const int32_t *gathering = packed + FG_DW_BLOCK_WORDS * ((channels + 3) >> 2);
    const int shifts_left = fg_mve_any_left_shift(&p->requant, channels);
    const int32_t lines[3] = {0, row_step, 2 * row_step};
    const uint16x8_t tap_offsets = fg_dw_tap_offsets(lines, col_step);
    const uint32_t tap8_offset = (uint32_t)(2 * (row_step + col_step));
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * row_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h;
            for (int32_t ox = 0; ox < p->out_w;) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                const int8_t *t[9];
                int32_t pixels = 1;
                if (gather && rows_inside && ox >= first && ox < end) {
                    pixels = end - ox;
                    if (pixels >= 2 && pairs_fit) {
                        const int32_t pairs = pixels >> 1;
                        fg_dw_pairs(image + y0 * row_bytes + x0 * channels, gathering, channels, pairs, pixel_step,
                                    tap_offsets, tap8_offset, shifts_left, &clamp, output, NULL, NULL);
                        ox += 2 * pairs;
                        output += 2 * pairs * channels;
                        continue;
                    }
                    fg_dw_gathered_runs[shifts_left](
                                       image + y0 * row_bytes + x0 * channels, gathering, channels, pixels,
                                       pixel_step, tap_offsets, tap8_offset, &clamp, output);
                    ox += pixels;
                    output += pixels * channels;
                    continue;
                }
                if (rows_inside && ox >= first && ox < end) {
                    t[0] = image + y0 * row_bytes + x0 * channels;
                    t[3] = t[0] + row_step;
                    t[6] = t[3] + row_step;
                    for (int32_t k = 0; k < 9; k += 3) {
                        t[k + 1] = t[k] + col_step;
                        t[k + 2] = t[k + 1] + col_step;
                    }
                    pixels = runs ? end - ox : 1;
                } else if (gather) {
                    fg_dw_border(p, image, y0, x0, zero_points, gathering, tap_offsets, tap8_offset, shifts_left,
                                 &clamp, output);
                    ++ox;
                    output += channels;
                    continue;
                } else {
                    fg_dw_taps(p, image, y0, x0, zero_points, t);
                }
                fg_dw_run(t, packed, channels, pixels, pixel_step, &clamp, output);
                if (channels & 3) {
                    fg_dw_last_channels(t, packed + FG_DW_BLOCK_WORDS * (channels >> 2), channels & ~3, channels & 3,
                                        &clamp, output);
                }
                ox += pixels;
                output += pixels * channels;
            }
        }
    }
}

/* A layer with padding through bands of its tap rows (no border pixels), one without through the image. */
void fg_depthwise_conv2d_3x3_s8_mve(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    if (fg_dw_banded_fits(p)) {
        fg_dw_banded(p, input, output);
    } else {
        fg_dw_direct(p, input, output);
    }
}

#endif /* __ARM_FEATURE_MVE */
