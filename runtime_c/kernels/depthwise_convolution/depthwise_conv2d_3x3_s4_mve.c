#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include <stddef.h>

#include "fg/isa/mve.h"
#include "fg/isa/mve_depthwise.h"

/* 4-bit weights make int16 sums enough for a 3x3 depthwise window (|x w| <= 128 x 8, nine taps: |sum| <= 9216), so
 * sixteen channels run in one vector: per tap the inputs of the sixteen channels in one VLDRB, VMULLB / VMULLT (int8
 * lanes, int16 products of the even and the odd channels) and two VADD; the weights of two taps unpacked from one
 * 16-byte vector by three shifts. Then the sums widened to four int32 vectors, of channels j, j + 4, j + 8, j + 12
 * (j = 0, 1, 2, 3), each requantized against its quant block and scattered to its bytes. The layout (mve_4bit.py), per
 * group of sixteen channels (zero past the layer's): taps (0, 1), (2, 3), (4, 5), (6, 7) as 16 bytes each (channel j
 * in byte j, the even tap in the low nibble, the odd one in the high one), tap 8 as 8 bytes (channel 2j in the low
 * nibble of byte j, 2j + 1 in its high one), then the quant blocks of j = 0 .. 3, each bias, left shift, multiplier,
 * right shift (4 words each). */

/* What the assembly reads and updates: the first group and the nine tap pointers of the first pixel (one LDM into
 * r0-r9), the clamp, the scatter offsets, the run. */
typedef struct {
    const int32_t *packed;
    const int8_t *t[9];
    int32x4_t low, high;
    uint32x4_t offsets;       /* 0, 4, 8, 12 */
    int32_t groups;           /* whole groups of sixteen channels */
    int32_t tail;             /* channels in the last group when it is short, else 0 */
    int32_t tail_lanes[4];    /* of its channels j, j + 4, j + 8, j + 12: how many there are */
    /* A tail of 1 to 8 channels (its group holds them twice, mve_4bit.py's depthwise_lanes) runs two pixels of a run
     * in one vector: their inputs gathered, both pixels' outputs stored together before the second's groups. */
    int32_t paired_pixels;    /* pixels of the run left to take in pairs (even; 0: none) */
    int32_t pair_load_mask;   /* P0 of the gathered lanes: channels < tail of both pixels */
    uint8_t pair_gather[16] __attribute__((aligned(4))); /* lane i: channel i % 8, of the second pixel from 8 on */
    uint32x4_t pair_offsets;  /* 0, 4, C, C + 4: channels j, j + 4 of both pixels */
    int32_t pair_store_masks[4]; /* P0 of those of them < tail */
    int32_t advance;          /* from a tap past a pixel's whole groups to the next pixel */
    int32_t pixels;           /* left to do */
    int32_t saved;            /* VPR: GCC may hold a predicate there, and knows no clobber for it */
} fg_dw4_run_state;

/* The 16 inputs of tap pointer a into q2: all of them, moving a on; or those the predicate P0 leaves (a short last
 * group; the others read as zero, never loaded). */
#define FG_DW4_X(a) "vldrb.8 q2, [" a "], #16\n"
#define FG_DW4_X_TAIL(a) "vpst\n" "vldrbt.8 q2, [" a "]\n"
#define FG_DW4_X_PAIR(a) "vpst\n" "vldrbt.u8 q2, [" a ", q6]\n"
/* Taps a and b against the pair of taps in the next 16 weight bytes (r0): q0 (even channels), q1 (odd) += their
 * products, or (FIRST) set to them; X: FG_DW4_X or FG_DW4_X_TAIL. */
#define FG_DW4_ASM_WEIGHT_PAIR                   \
    "vldrb.8 q3, [r0], #16\n"                    \
    "vshl.i8 q4, q3, #4\n"                       \
    "vshr.s8 q4, q4, #4\n"                       \
    "vshr.s8 q3, q3, #4\n"
#define FG_DW4_ASM_PRODUCTS(weights)             \
    "vmullb.s8 q5, q2, " weights "\n"            \
    "vadd.i16 q0, q0, q5\n"                      \
    "vmullt.s8 q5, q2, " weights "\n"            \
    "vadd.i16 q1, q1, q5\n"
#define FG_DW4_ASM_PAIR(X, a, b) \
    FG_DW4_ASM_WEIGHT_PAIR X(a) FG_DW4_ASM_PRODUCTS("q4") X(b) FG_DW4_ASM_PRODUCTS("q3")
#define FG_DW4_ASM_FIRST_PAIR(X)                 \
    FG_DW4_ASM_WEIGHT_PAIR X("r1")               \
    "vmullb.s8 q0, q2, q4\n"                     \
    "vmullt.s8 q1, q2, q4\n"                     \
    X("r2") FG_DW4_ASM_PRODUCTS("q3")
/* A group's nine taps into q0, q1 (tap 8: each weight byte sign-extended into an int16 lane and shifted up by 4 puts
 * the odd channel's weight in the high byte, 16 x the even one's in the low byte: that product, which fits int16, is
 * shifted back exactly); r0 moves on to the group's quant blocks. */
#define FG_DW4_ASM_SUMS(X, OFFSETS)                                                                                  \
    FG_DW4_ASM_FIRST_PAIR(X) FG_DW4_ASM_PAIR(X, "r3", "r4") FG_DW4_ASM_PAIR(X, "r5", "r6")                     \
    FG_DW4_ASM_PAIR(X, "r7", "r8")                                                                             \
    "vldrb.s16 q3, [r0], #8\n"                                                                                 \
    "vshl.i16 q3, q3, #4\n"                                                                                    \
    X("r9")                                                                                                    \
    "vmullb.s8 q5, q2, q3\n"                                                                                   \
    "vshr.s16 q5, q5, #4\n"                                                                                    \
    "vadd.i16 q0, q0, q5\n"                                                                                    \
    "vmullt.s8 q5, q2, q3\n"                                                                                   \
    "vadd.i16 q1, q1, q5\n"                                                                                    \
    "vldrw.32 q5, [%[st], " OFFSETS "]\n"
/* The int32 sums in q2 requantized (quant block at r0, which moves past it; BIAS_LEFT: FG_DW4_ASM_BIAS or
 * FG_DW4_ASM_BIAS_LEFT), stored by STORE at out + 0, 4, 8, 12 (q5); out moves on by one channel. */
#define FG_DW4_ASM_BIAS "vldrw.32 q3, [r0], #32\n" "vadd.i32 q2, q2, q3\n"
#define FG_DW4_ASM_BIAS_LEFT                     \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vadd.i32 q2, q2, q3\n"                      \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vshl.s32 q2, q2, q3\n"
#define FG_DW4_STORE "vstrb.32 q2, [%[out], q5]\n"
#define FG_DW4_STORE_TAIL(j) \
    "ldr %[n], [%[st], %[lanes] + 4 * " #j "]\n" "vctp.32 %[n]\n" "vpst\n" "vstrbt.32 q2, [%[out], q5]\n"
#define FG_DW4_STORE_PAIR(j) \
    "ldr %[n], [%[st], %[pair_masks] + 4 * " #j "]\n" "vmsr p0, %[n]\n" "vpst\n" "vstrbt.32 q2, [%[out], q5]\n"
#define FG_DW4_ASM_STORE(BIAS_LEFT, STORE)       \
    BIAS_LEFT                                    \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vqrdmulh.s32 q2, q2, q3\n"                  \
    "vldrw.32 q3, [r0], #16\n"                   \
    "vand q4, q2, q3\n"                          \
    "vshr.s32 q4, q4, #31\n"                     \
    "vqadd.s32 q2, q2, q4\n"                     \
    "vrshl.s32 q2, q2, q3\n"                     \
    "vadd.i32 q2, q2, %[off]\n"                  \
    "vmax.s32 q2, q2, q6\n"                      \
    "vmin.s32 q2, q2, q7\n"                      \
    STORE                                        \
    "adds %[out], %[out], #1\n"
/* Channels j, j + 4, j + 8, j + 12 (j = 0 .. 3) of the group: q0, q1 widened, requantized and stored. */
#define FG_DW4_ASM_OUTPUTS(BIAS_LEFT, S0, S1, S2, S3)                                                          \
    "vmovlb.s16 q2, q0\n" FG_DW4_ASM_STORE(BIAS_LEFT, S0) "vmovlb.s16 q2, q1\n" FG_DW4_ASM_STORE(BIAS_LEFT, S1) \
    "vmovlt.s16 q2, q0\n" FG_DW4_ASM_STORE(BIAS_LEFT, S2) "vmovlt.s16 q2, q1\n" FG_DW4_ASM_STORE(BIAS_LEFT, S3)

/* st->pixels output pixels (input pixels st->advance + 16 x groups bytes apart), each its groups of sixteen channels,
 * the last one short when st->tail, in assembly: the tap pointers in r1-r9 (post-incremented over the whole groups),
 * the packed pointer in r0 (byte-widening loads take r0-r7 only); q6, q7 the clamp. Versions with the left shift, and
 * without it for layers that never shift left. */
#define FG_DW4_RUN(NAME, BIAS_LEFT) \
__attribute__((noinline)) static void NAME(fg_dw4_run_state *st, int32_t offset, int8_t *out) { \
    int32_t n; \
    __asm__ volatile("vmrs %[n], p0\n" \
                     "str %[n], [%[st], %[saved]]\n" \
                     "vldrw.32 q6, [%[st], %[lo]]\n" \
                     "vldrw.32 q7, [%[st], %[hi]]\n" \
                     "ldm %[st], {r0, r1, r2, r3, r4, r5, r6, r7, r8, r9}\n" \
                     "3:\n" \
                     "ldr %[n], [%[st], %[groups]]\n" \
                     "cmp %[n], #0\n" \
                     "beq 4f\n" \
                     "1:\n" \
                     FG_DW4_ASM_SUMS(FG_DW4_X, "%[offsets]") \
                     FG_DW4_ASM_OUTPUTS(BIAS_LEFT, FG_DW4_STORE, FG_DW4_STORE, FG_DW4_STORE, FG_DW4_STORE) \
                     "adds %[out], %[out], #12\n" \
                     "subs %[n], %[n], #1\n" \
                     "bne 1b\n" \
                     "4:\n" \
                     "ldr %[n], [%[st], %[tail]]\n" \
                     "cmp %[n], #0\n" \
                     "beq 5f\n" \
                     "ldr %[n], [%[st], %[paired]]\n" \
                     "cmp %[n], #0\n" \
                     "beq 7f\n" \
                     "subs %[n], %[n], #1\n" \
                     "str %[n], [%[st], %[paired]]\n" \
                     "tst %[n], #1\n" \
                     "beq 6f\n" \
                     "ldr %[n], [%[st], %[pair_mask]]\n" \
                     "vmsr p0, %[n]\n" \
                     "vldrw.32 q6, [%[st], %[gather]]\n" \
                     FG_DW4_ASM_SUMS(FG_DW4_X_PAIR, "%[pair_offsets]") \
                     "vldrw.32 q6, [%[st], %[lo]]\n" \
                     FG_DW4_ASM_OUTPUTS(BIAS_LEFT, FG_DW4_STORE_PAIR(0), FG_DW4_STORE_PAIR(1), FG_DW4_STORE_PAIR(2), \
                                        FG_DW4_STORE_PAIR(3)) \
                     "ldr %[n], [%[st], %[tail]]\n" \
                     "subs %[n], %[n], #4\n" \
                     "add %[out], %[out], %[n]\n" \
                     "b 5f\n" \
                     "6:\n" \
                     "ldr %[n], [%[st], %[tail]]\n" \
                     "add %[out], %[out], %[n]\n" \
                     "b 5f\n" \
                     "7:\n" \
                     "ldr %[n], [%[st], %[tail]]\n" \
                     "vctp.8 %[n]\n" \
                     FG_DW4_ASM_SUMS(FG_DW4_X_TAIL, "%[offsets]") \
                     FG_DW4_ASM_OUTPUTS(BIAS_LEFT, FG_DW4_STORE_TAIL(0), FG_DW4_STORE_TAIL(1), FG_DW4_STORE_TAIL(2), \
                                        FG_DW4_STORE_TAIL(3)) \
                     "ldr %[n], [%[st], %[tail]]\n" \
                     "subs %[n], %[n], #4\n" \
                     "add %[out], %[out], %[n]\n" \
                     "5:\n" \
                     "ldr %[n], [%[st], %[advance]]\n" \
                     "add r1, r1, %[n]\n" \
                     "add r2, r2, %[n]\n" \
                     "add r3, r3, %[n]\n" \
                     "add r4, r4, %[n]\n" \
                     "add r5, r5, %[n]\n" \
                     "add r6, r6, %[n]\n" \
                     "add r7, r7, %[n]\n" \
                     "add r8, r8, %[n]\n" \
                     "add r9, r9, %[n]\n" \
                     "ldr r0, [%[st]]\n" \
                     "ldr %[n], [%[st], %[pixels]]\n" \
                     "subs %[n], %[n], #1\n" \
                     "str %[n], [%[st], %[pixels]]\n" \
                     "bne 3b\n" \
                     "ldr %[n], [%[st], %[saved]]\n" \
                     "vmsr p0, %[n]\n" \
                     : [out] "+r"(out), [n] "=&r"(n) \
                     : [st] "r"(st), [off] "r"(offset), [lo] "i"(offsetof(fg_dw4_run_state, low)), \
                       [hi] "i"(offsetof(fg_dw4_run_state, high)), \
                       [offsets] "i"(offsetof(fg_dw4_run_state, offsets)), \
                       [groups] "i"(offsetof(fg_dw4_run_state, groups)), \
                       [tail] "i"(offsetof(fg_dw4_run_state, tail)), \
                       [lanes] "i"(offsetof(fg_dw4_run_state, tail_lanes)), \
                       [paired] "i"(offsetof(fg_dw4_run_state, paired_pixels)), \
                       [pair_mask] "i"(offsetof(fg_dw4_run_state, pair_load_mask)), \
                       [gather] "i"(offsetof(fg_dw4_run_state, pair_gather)), \
                       [pair_offsets] "i"(offsetof(fg_dw4_run_state, pair_offsets)), \
                       [pair_masks] "i"(offsetof(fg_dw4_run_state, pair_store_masks)), \
                       [advance] "i"(offsetof(fg_dw4_run_state, advance)), \
                       [pixels] "i"(offsetof(fg_dw4_run_state, pixels)), \
                       [saved] "i"(offsetof(fg_dw4_run_state, saved)) \
                     : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "q0", "q1", "q2", "q3", "q4", \
                       "q5", "q6", "q7", "memory", "cc"); \
}
FG_DW4_RUN(fg_dw4_run_shifted, FG_DW4_ASM_BIAS_LEFT)
FG_DW4_RUN(fg_dw4_run, FG_DW4_ASM_BIAS)

/* The taps of the window whose top left tap is (y0, x0) of an image without pixel rows outside it (lines[ky]: the
 * address of row y0 + ky x dilation_h, or 0 in the padding): into the image, or the row of zero points. */
static void fg_dw4_taps(const fg_depthwise_conv2d_params *p, const int8_t *const lines[3], int32_t x0,
                        const int8_t *zero_points, const int8_t *t[9]) {
    for (int32_t kx = 0; kx < 3; ++kx, x0 += p->dilation_w) {
        const int inside = x0 >= 0 && x0 < p->in_w;
        const int32_t at = x0 * p->in_c;
        for (int32_t ky = 0; ky < 3; ++ky) {
            t[3 * ky + kx] = inside && lines[ky] ? lines[ky] + at : zero_points;
        }
    }
}

/* The two-pixel tail's constants (span: from a pixel's inputs to the next one's); whether the layer takes it. */
static int fg_dw4_pairs(fg_dw4_run_state *st, int32_t channels, int32_t span) {
    st->pair_load_mask = ((1 << st->tail) - 1) * 0x0101;
    for (int32_t i = 0; i < 16; ++i) {
        st->pair_gather[i] = (uint8_t)((i & 7) + (i >= 8 ? span : 0));
    }
    const uint32_t both = (uint32_t)channels;
    st->pair_offsets = vsetq_lane_u32(both + 4, vsetq_lane_u32(both, vidupq_n_u32(0, 4), 2), 3);
    for (int32_t j = 0; j < 4; ++j) {
        st->pair_store_masks[j] = (j < st->tail ? 0x0F0F : 0) | (j + 4 < st->tail ? 0xF0F0 : 0);
    }
    return st->tail >= 1 && st->tail <= 8 && span + 7 <= 255;
}

/* One pixel at a time, all its channels before the next (the order ops/overlap.py's allowance assumes): the pixels of
 * a row whose windows' columns are inside the image in runs (those whose rows are not, as long as the row of zero
 * points reaches), the others one by one. */
void fg_depthwise_conv2d_3x3_s4_mve(const fg_depthwise_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                    int8_t *output) {
    (void)filter;
    const int32_t channels = p->in_c, row_bytes = p->in_w * channels;
    const int32_t row_step = p->dilation_h * row_bytes, col_step = p->dilation_w * channels;
    const fg_mve_clamp clamp = fg_mve_make_clamp(&p->requant);
    const int shifts_left = fg_mve_any_left_shift(&p->requant, channels);
    /* Output columns [first, end) have their windows' columns inside the image. */
    const int32_t first = (p->pad_left + p->stride_w - 1) / p->stride_w;
    const int32_t last_x = p->in_w - 1 - 2 * p->dilation_w + p->pad_left;
    const int32_t end = last_x < 0 ? 0 : last_x / p->stride_w + 1;
    fg_dw4_run_state st;
    st.packed = (const int32_t *)p->packed;
    st.low = clamp.low;
    st.high = clamp.high;
    st.offsets = vidupq_n_u32(0, 4);
    st.groups = channels >> 4;
    st.tail = channels & 15;
    for (int32_t j = 0; j < 4; ++j) {
        st.tail_lanes[j] = (st.tail - j + 3) >> 2;
    }
    st.advance = p->stride_w * channels - 16 * st.groups;
    const int32_t span = p->stride_w * channels; /* from a pixel's inputs to the next one's */
    const int paired = fg_dw4_pairs(&st, channels, span);
    /* Windows whose columns are inside the image but rows are not run too, their taps in the padding walking along
     * the row of zero points: as many pixels as it holds. */
    const int32_t held = (FG_MVE_DEPTHWISE_MAX - channels) / span + 1;
    const int32_t zero_run = held < p->out_w ? held : p->out_w;
    int8_t zero_points[FG_MVE_DEPTHWISE_MAX];
    fg_mve_fill_s8(zero_points, (int8_t)-p->requant.input_offset, channels + (zero_run - 1) * span);
    const int8_t **t = st.t;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * row_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h;
            const int8_t *lines[3];
            for (int32_t ky = 0, y = y0; ky < 3; ++ky, y += p->dilation_h) {
                lines[ky] = y >= 0 && y < p->in_h ? image + y * row_bytes : 0;
            }
            for (int32_t ox = 0; ox < p->out_w; output += st.pixels * channels, ox += st.pixels) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                const int columns_inside = ox >= first && ox < end;
                st.pixels = 1;
                if (rows_inside && columns_inside) {
                    t[0] = image + y0 * row_bytes + x0 * channels;
                    for (int32_t k = 0; k < 9; k += 3) {
                        t[k] = k ? t[k - 3] + row_step : t[0];
                        t[k + 1] = t[k] + col_step;
                        t[k + 2] = t[k + 1] + col_step;
                    }
                    st.pixels = end - ox;
                } else {
                    fg_dw4_taps(p, lines, x0, zero_points, t);
                    st.pixels = columns_inside ? (end - ox < zero_run ? end - ox : zero_run) : 1;
                }
                const int32_t pixels = st.pixels;
                st.paired_pixels = paired ? pixels & ~1 : 0;
                (shifts_left ? fg_dw4_run_shifted : fg_dw4_run)(&st, clamp.offset, output);
                st.pixels = pixels;
            }
        }
    }
}

/* 4-bit weights, the banded path's loops against the 4-bit gathering layout (mve_4bit.py's
 * depthwise_gathered_layout_4bit): per four channels the quant block, taps 0-7 of channels 0 and 1 as 8 bytes (byte t:
 * tap t of channel 1 in the high nibble, of channel 0 in the low one), of channels 2 and 3 the same, tap 8 of the four
 * as 4 bytes: 84 bytes. A pair's 8 bytes widened to int16 lanes (VLDRB.S16: its base pk in r0-r7), its second
 * channel's weights by VSHR #4, its first's by VSHL #12 and VSHR #12: two loads and six shifts a block where the int8
 * layout takes four loads; tap 8 by one widening load as the int8 layout's word load. */
enum { FG_DW4_GATHER_BLOCK_WORDS = 16 + 4 + 1 };
#define FG_DW4_W_PAIR(offset, w, w_b)            \
    "vldrb.s16 " w ", [%[pk], #" #offset "]\n"  \
    "vshr.s16 " w_b ", " w ", #4\n"             \
    "vshl.i16 " w ", " w ", #12\n"              \
    "vshr.s16 " w ", " w ", #12\n"
#define FG_DW4_TAP8_W(q) "vldrb.s32 " q ", [%[pk], #64]\n"
#define FG_DW4_ADVANCE "adds %[pk], %[pk], #68\n"
#define FG_DW4_GATHERED_RUN(NAME, LEFT_SHIFT, SIGN)                                                            \
    FG_DW_GATHERED_RUN_W(NAME,                                                                                 \
                         FG_DW_GATHER_W(FG_DW4_W_PAIR(48, "q1", "q2"), "r0", "q1") FG_DW_GATHER_W("", "r2", "q2") \
                         FG_DW_GATHER_W(FG_DW4_W_PAIR(56, "q1", "q2"), "r4", "q1") FG_DW_GATHER_W("", "r6", "q2") \
                         , FG_DW_GATHER_BLOCK_END_W(FG_DW4_TAP8_W("q1"), FG_DW4_ADVANCE, LEFT_SHIFT, SIGN), "=&l")
FG_DW4_GATHERED_RUN(fg_dw4_gathered_run_shifted, FG_DW_LEFT_SHIFT, FG_DW_SIGN)
FG_DW4_GATHERED_RUN(fg_dw4_gathered_run, "", FG_DW_SIGN)
FG_DW4_GATHERED_RUN(fg_dw4_gathered_run_negative, "", FG_DW_SIGN_NEGATIVE)
static fg_dw_run_loop *const fg_dw4_gathered_runs[3] = {fg_dw4_gathered_run, fg_dw4_gathered_run_shifted,
                                                        fg_dw4_gathered_run_negative};
#define FG_DW4_GATHER2                                                         \
    FG_DW_GATHER2_W(FG_DW4_W_PAIR(48, "q2", "q3"), "r0", "r8", "q2", FG_DW_GATHER_A) \
    FG_DW_GATHER2_W("", "r2", "r10", "q3", FG_DW_GATHER_A)                     \
    FG_DW_GATHER2_W(FG_DW4_W_PAIR(56, "q2", "q3"), "r4", "r12", "q2", FG_DW_GATHER_A) \
    FG_DW_GATHER2_W("", "r6", "lr", "q3", "vldrb.s32 q0, [%[x], %q[tap8]]\n")
#define FG_DW4_GATHERED_BLOCK(LEFT_SHIFT, ROUND2) \
    FG_DW_GATHERED_BLOCK_W(FG_DW4_GATHER2, FG_DW4_TAP8_W("q2"), FG_DW4_ADVANCE, LEFT_SHIFT, ROUND2)
FG_DW_GATHERED_PAIRS_W(fg_dw4_gathered_pairs_shifted, FG_DW4_GATHERED_BLOCK(FG_DW_LEFT_SHIFT2, FG_MVE_ROUND2_DIVIDE),
                       FG_DW_PAIR_BESIDE, "=&l")
FG_DW_GATHERED_PAIRS_W(fg_dw4_gathered_pairs, FG_DW4_GATHERED_BLOCK("", FG_MVE_ROUND2_DIVIDE), FG_DW_PAIR_BESIDE, "=&l")
FG_DW_GATHERED_PAIRS_W(fg_dw4_gathered_pairs_negative, FG_DW4_GATHERED_BLOCK("", FG_MVE_ROUND2_NEGATIVE),
                       FG_DW_PAIR_BESIDE, "=&l")
FG_DW_GATHERED_PAIRS_W(fg_dw4_gathered_below_shifted, FG_DW4_GATHERED_BLOCK(FG_DW_LEFT_SHIFT2, FG_MVE_ROUND2_DIVIDE),
                       FG_DW_PAIR_BELOW, "=&l")
FG_DW_GATHERED_PAIRS_W(fg_dw4_gathered_below, FG_DW4_GATHERED_BLOCK("", FG_MVE_ROUND2_DIVIDE), FG_DW_PAIR_BELOW, "=&l")
FG_DW_GATHERED_PAIRS_W(fg_dw4_gathered_below_negative, FG_DW4_GATHERED_BLOCK("", FG_MVE_ROUND2_NEGATIVE),
                       FG_DW_PAIR_BELOW, "=&l")
static fg_dw_pairs_loop *const fg_dw4_gathered_pairs_kinds[3] = {fg_dw4_gathered_pairs, fg_dw4_gathered_pairs_shifted,
                                                                 fg_dw4_gathered_pairs_negative};
static fg_dw_pairs_loop *const fg_dw4_gathered_below_kinds[3] = {fg_dw4_gathered_below, fg_dw4_gathered_below_shifted,
                                                                 fg_dw4_gathered_below_negative};
FG_DW_PAIRS_FN(fg_dw4_gathered_pairs_of, fg_dw4_gathered_pairs_kinds, fg_dw4_gathered_below_kinds)
FG_DW_BANDED(fg_dw4_banded, (const int32_t *)p->packed, FG_DW4_GATHER_BLOCK_WORDS, fg_dw4_gathered_pairs_of,
             fg_dw4_gathered_runs)

/* fg_depthwise_conv2d_s4 of a layer with padding whose band fits (ops/variants/mve_4bit.py checks fg_dw_banded_fits's
 * terms), through the int8 kernel's banded path against the 4-bit gathering layout. */
void fg_depthwise_conv2d_3x3_s4_gathered_mve(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                             const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_dw4_banded(p, input, output);
}

#endif /* __ARM_FEATURE_MVE */
