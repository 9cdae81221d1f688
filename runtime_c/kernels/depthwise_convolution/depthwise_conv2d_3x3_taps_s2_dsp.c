#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#include <string.h>

#include "fg/isa/dsp.h"

/* Stride 2 both ways, four channels at a time (a group): the input rows of a block of output rows are sign-extended
 * into a band on the stack, so that a word holds two horizontally adjacent inputs of one channel, X_k = (x[2k],
 * x[2k + 1]), the group's four channels' X_k side by side (16 bytes a column pair). With a filter row's weights as
 * A = (w0, w1) and C = (w1, w2) (the taps kernel's table, ops/variants/dsp_taps.py's taps_table), output p of that
 * row takes SMLAD(X_p, A) + SMLABT(X_p+1, C): 6 multiplies an output against the ring kernel's 9. Eight outputs of
 * one channel a pass (FG_DSP_DW_S2_ASM), its weights loaded once a filter row. */

#define FG_DSP_DW_S2_ROW (4 * FG_DSP_DW_TAPS_S2_WORDS)  /* words of a band row */
#define FG_DSP_DW_S2_BLOCK 4                            /* output rows a band holds the windows of */
#define FG_DSP_DW_S2_BAND_ROWS (2 * FG_DSP_DW_S2_BLOCK + 1)

/* Output n's (register r4 + n) share of filter row i: SMLAD of X_n (in x) from `from`, SMLABT of X_n+1 (in y). */
#define FG_DSP_DW_S2_AD(n, x, from) "smlad r" #n ", " x ", r2, " from "\n\t"
#define FG_DSP_DW_S2_BT(n, y) "smlabt r" #n ", " y ", r3, r" #n "\n\t"
#define FG_DSP_DW_S2_ACC(n, x) FG_DSP_DW_S2_AD(n, x, "r" #n)
#define FG_DSP_DW_S2_X(reg, i, k) "ldr " reg ", [r0, #(" #i " * 4 * 4 * " FG_DSP_DW_S2_WORDS_S " + 16 * " #k ")]\n\t"
#define FG_DSP_DW_S2_W(i) "ldr r2, [sp, #(16 + 8 * " #i ")]\n\t" "ldr r3, [sp, #(20 + 8 * " #i ")]\n\t"
#define FG_DSP_DW_S2_STR(x) #x
#define FG_DSP_DW_S2_XSTR(x) FG_DSP_DW_S2_STR(x)
#define FG_DSP_DW_S2_WORDS_S FG_DSP_DW_S2_XSTR(FG_DSP_DW_TAPS_S2_WORDS)
/* Filter row 0: every output starts from the bias (lr); two input registers (r1, r12), loads in pairs. */
#define FG_DSP_DW_S2_ROW0                                                                                  \
    FG_DSP_DW_S2_W(0) FG_DSP_DW_S2_X("r1", 0, 0) FG_DSP_DW_S2_X("r12", 0, 1)                              \
    FG_DSP_DW_S2_AD(4, "r1", "lr") FG_DSP_DW_S2_BT(4, "r12") FG_DSP_DW_S2_AD(5, "r12", "lr")              \
    FG_DSP_DW_S2_X("r1", 0, 2) FG_DSP_DW_S2_X("r12", 0, 3)                                                \
    FG_DSP_DW_S2_BT(5, "r1") FG_DSP_DW_S2_AD(6, "r1", "lr") FG_DSP_DW_S2_BT(6, "r12")                     \
    FG_DSP_DW_S2_AD(7, "r12", "lr") FG_DSP_DW_S2_X("r1", 0, 4) FG_DSP_DW_S2_X("r12", 0, 5)               \
    FG_DSP_DW_S2_BT(7, "r1") FG_DSP_DW_S2_AD(8, "r1", "lr") FG_DSP_DW_S2_BT(8, "r12")                     \
    FG_DSP_DW_S2_AD(9, "r12", "lr") FG_DSP_DW_S2_X("r1", 0, 6) FG_DSP_DW_S2_X("r12", 0, 7)               \
    FG_DSP_DW_S2_BT(9, "r1") FG_DSP_DW_S2_AD(10, "r1", "lr") FG_DSP_DW_S2_BT(10, "r12")                   \
    FG_DSP_DW_S2_AD(11, "r12", "lr") FG_DSP_DW_S2_X("r1", 0, 8) FG_DSP_DW_S2_BT(11, "r1")
/* Filter rows 1 and 2: three input registers (r1, r12, lr). */
#define FG_DSP_DW_S2_ROWI(i)                                                                               \
    FG_DSP_DW_S2_W(i) FG_DSP_DW_S2_X("r1", i, 0) FG_DSP_DW_S2_X("r12", i, 1) FG_DSP_DW_S2_X("lr", i, 2)  \
    FG_DSP_DW_S2_ACC(4, "r1") FG_DSP_DW_S2_BT(4, "r12") FG_DSP_DW_S2_ACC(5, "r12") FG_DSP_DW_S2_BT(5, "lr") \
    FG_DSP_DW_S2_ACC(6, "lr") FG_DSP_DW_S2_X("r1", i, 3) FG_DSP_DW_S2_X("r12", i, 4)                      \
    FG_DSP_DW_S2_BT(6, "r1") FG_DSP_DW_S2_ACC(7, "r1") FG_DSP_DW_S2_BT(7, "r12") FG_DSP_DW_S2_ACC(8, "r12") \
    FG_DSP_DW_S2_X("r1", i, 5) FG_DSP_DW_S2_X("lr", i, 6)                                                 \
    FG_DSP_DW_S2_BT(8, "r1") FG_DSP_DW_S2_ACC(9, "r1") FG_DSP_DW_S2_BT(9, "lr") FG_DSP_DW_S2_ACC(10, "lr") \
    FG_DSP_DW_S2_X("r1", i, 7) FG_DSP_DW_S2_X("r12", i, 8)                                                \
    FG_DSP_DW_S2_BT(10, "r1") FG_DSP_DW_S2_ACC(11, "r1") FG_DSP_DW_S2_BT(11, "r12")
/* Output stages of one accumulator (multiplier r1, offset r2, shift r3): fg_dsp_narrow_doubled's, or SMMLAR adding
 * the offset where the output zero point is -128 (a negative value clamps to -128 either way). */
#define FG_DSP_DW_S2_OUT(a) \
    "smmulr " a ", " a ", r1\n\t" "add " a ", " a ", " a ", asr #31\n\t" "add " a ", " a ", r2\n\t" \
    "asr " a ", " a ", r3\n\t" "ssat " a ", #8, " a "\n\t"
#define FG_DSP_DW_S2_OUT_RELU(a) \
    "smmlar " a ", " a ", r1, r2\n\t" "asr " a ", " a ", r3\n\t" "ssat " a ", #8, " a "\n\t"
/* The eight outputs, out in r12 and step in lr: their addresses first, so that the STRB run back to back. */
#define FG_DSP_DW_S2_STORES                                                                                   \
    "add r1, r12, lr, lsl #1\n\t" "add r2, r1, lr, lsl #1\n\t" "add r3, r2, lr, lsl #1\n\t"                  \
    "strb r4, [r12]\n\t" "strb r5, [r12, lr]\n\t" "strb r6, [r1]\n\t" "strb r7, [r1, lr]\n\t"                \
    "strb r8, [r2]\n\t" "strb r9, [r2, lr]\n\t" "strb r10, [r3]\n\t" "strb r11, [r3, lr]\n\t"               \
    "add r12, r3, lr, lsl #1\n\t"
/* The passes of `rows` output rows (each count outputs, the next one's outputs straight after) of one channel: x (r0)
 * at the first window's X_0, k (r1) its table entry in RAM, copied into the frame (`uint32_t frame[16]` at sp: the
 * entry's ten words, out, step, then as the caller sets them the row's passes' end, rows left, the bytes from a row's
 * end to the next one's X_0). */
#define FG_DSP_DW_S2_ASM(OUT)                                                                                       \
    __asm__ volatile(                                                                                                \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t"                  \
        "ldm r1!, {r4-r11}\n\t"                                                                                     \
        "stm sp, {r4-r11}\n\t"                                                                                      \
        "ldm r1, {r4, r5}\n\t"                                                                                      \
        "str r4, [sp, #32]\n\t"                                                                                     \
        "str r5, [sp, #36]\n\t"                                                                                     \
        "str r2, [sp, #40]\n\t"                                                                                     \
        "str r12, [sp, #44]\n"                                                                                    \
        "1:\n\t"                                                                                                    \
        "ldr lr, [sp]\n\t"                                                                                          \
        FG_DSP_DW_S2_ROW0 FG_DSP_DW_S2_ROWI(1) FG_DSP_DW_S2_ROWI(2)                                                \
        "ldr r1, [sp, #4]\n\t" "ldr r2, [sp, #8]\n\t" "ldr r3, [sp, #12]\n\t"                                     \
        "ldr r12, [sp, #40]\n\t" "ldr lr, [sp, #44]\n\t"                                                           \
        OUT("r4") OUT("r5") OUT("r6") OUT("r7") OUT("r8") OUT("r9") OUT("r10") OUT("r11")                          \
        FG_DSP_DW_S2_STORES                                                                                          \
        "str r12, [sp, #40]\n\t"                                                                                    \
        "ldr r1, [sp, #48]\n\t"                                                                                     \
        "add r0, r0, #128\n\t"                                                                                      \
        "cmp r0, r1\n\t"                                                                                            \
        "bne 1b\n\t"                                                                                                \
        "ldr r2, [sp, #52]\n\t"                                                                                      \
        "ldr r3, [sp, #56]\n\t"                                                                                      \
        "add r1, r1, #(8 * 4 * " FG_DSP_DW_S2_WORDS_S ")\n\t"                                                        \
        "add r0, r0, r3\n\t"                                                                                         \
        "str r1, [sp, #48]\n\t"                                                                                      \
        "subs r2, r2, #1\n\t"                                                                                        \
        "str r2, [sp, #52]\n\t"                                                                                      \
        "bne 1b\n\t"                                                                                                 \
        : [x] "+r"(rx), [k] "+r"(rk), [out] "+r"(ro), [step] "+r"(rs), [frame] "+m"(frame)      \
        :                                                                                                           \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory")

/* Passes of eight outputs of one channel along `rows` output rows of count (a multiple of 8) outputs each. */
static __attribute__((noinline)) void fg_dsp_dw_s2_eights(const uint32_t *x, const uint32_t *k, int8_t *out,
                                                          int32_t count, int32_t rows, int32_t step, int relu) {
    uint32_t frame[16];
    frame[12] = (uint32_t)(x + 4 * count);
    frame[13] = (uint32_t)rows;
    frame[14] = (uint32_t)(4 * (2 * FG_DSP_DW_S2_ROW - 4 * count));
    register const uint32_t *rx __asm__("r0") = x;
    register const uint32_t *rk __asm__("r1") = k;
    register int8_t *ro __asm__("r2") = out;
    register int32_t rs __asm__("r12") = step;
    if (relu) {
        FG_DSP_DW_S2_ASM(FG_DSP_DW_S2_OUT_RELU);
    } else {
        FG_DSP_DW_S2_ASM(FG_DSP_DW_S2_OUT);
    }
}

/* Two pixels' words a, b (four int8 channels each) into the four channels' X words at dst. */
static inline void fg_dsp_dw_s2_pair(uint32_t a, uint32_t b, uint32_t *dst) {
    const uint32_t low = (a & 0xFFFFu) | (b << 16), high = (a >> 16) | (b & 0xFFFF0000u);
    dst[0] = __sxtb16(low);
    dst[1] = fg_dsp_odd_s8x2(low);
    dst[2] = __sxtb16(high);
    dst[3] = fg_dsp_odd_s8x2(high);
}

/* Eight pixels (four column pairs) a pass, fg_dsp_dw_s2_pair's by PKHBT, PKHTB and four SXTB16 a pair of pixels. */
#define FG_DSP_DW_S2_EXTEND_FOUR                                                                             \
    "ldr r4, [%[src]]\n\t"                                                                                    \
    "ldr r6, [%[src], %[step]]\n\t"                                                                           \
    "ldr r8, [%[src], %[step], lsl #1]\n\t"                                                                   \
    "ldr r10, [%[src], %[step3]]\n\t"                                                                         \
    "add %[src], %[src], %[step], lsl #2\n\t"                                                                 \
    "pkhbt r5, r4, r6, lsl #16\n\t" "pkhtb r7, r6, r4, asr #16\n\t"                                           \
    "pkhbt r9, r8, r10, lsl #16\n\t" "pkhtb r11, r10, r8, asr #16\n\t"                                        \
    "sxtb16 r4, r5\n\t" "sxtb16 r5, r5, ror #8\n\t" "sxtb16 r6, r7\n\t" "sxtb16 r7, r7, ror #8\n\t"           \
    "sxtb16 r8, r9\n\t" "sxtb16 r9, r9, ror #8\n\t" "sxtb16 r10, r11\n\t" "sxtb16 r11, r11, ror #8\n\t"      \
    "stm %[dst]!, {r4-r11}\n\t"

/* `rows` rows of `quads` x 4 column pairs from src (rows `pitch` bytes apart) into band rows from dst. */
static __attribute__((noinline)) void fg_dsp_dw_s2_extend(const int8_t *src, int32_t step, int32_t quads, int32_t rows,
                                                          int32_t pitch, uint32_t *dst) {
    const int32_t step3 = 3 * step, skips[2] = {pitch - 8 * quads * step, 4 * (FG_DSP_DW_S2_ROW - 16 * quads)};
    __asm__ volatile(
        "1:\n\t"
        "ldr lr, %[quads]\n"
        "2:\n\t"
        FG_DSP_DW_S2_EXTEND_FOUR FG_DSP_DW_S2_EXTEND_FOUR
        "subs lr, lr, #1\n\t"
        "bne 2b\n\t"
        "ldr r4, %[sskip]\n\t"
        "ldr r5, %[dskip]\n\t"
        "add %[src], %[src], r4\n\t"
        "add %[dst], %[dst], r5\n\t"
        "subs %[rows], %[rows], #1\n\t"
        "bne 1b\n\t"
        : [src] "+r"(src), [dst] "+r"(dst), [rows] "+r"(rows)
        : [step] "r"(step), [step3] "r"(step3), [quads] "m"(quads), [sskip] "m"(skips[0]), [dskip] "m"(skips[1])
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory");
}

/* The pixel word (four int8 channels) at src. */
static inline uint32_t fg_dsp_dw_s2_word(const int8_t *src) {
    uint32_t v;
    memcpy(&v, src, 4);
    return v;
}

/* `rows` input rows of the group from src into band rows from row: each row's column pairs that reach into the image
 * (those past it keep the zero point's words, fg_dsp_dw_s2_padding), the padding's column in a pair as the zero
 * point's word `zero` (four int8): the pairs of eight pixels for all rows in one call, then each row's others. */
static __attribute__((noinline)) void fg_dsp_dw_s2_rows(const int8_t *src, const fg_depthwise_conv2d_params *p,
                                                        int32_t rows, int32_t words, uint32_t zero,
                                                        uint32_t *row) {
    const int32_t step = p->in_c, pad = p->pad_left, pitch = p->in_w * step;
    const int32_t n = (p->in_w - pad) / 2 < words - pad ? (p->in_w - pad) / 2 : words - pad;  /* whole pairs */
    const int32_t last = pad + n < words && pad + 2 * n < p->in_w;  /* the image's last column, then padding */
    if (n >= 4) {
        fg_dsp_dw_s2_extend(src + pad * step, step, n >> 2, rows, pitch, row + 4 * pad);
    }
    if (!pad && !(n & 3) && !last) {
        return;
    }
    for (; rows > 0; --rows, src += pitch, row += FG_DSP_DW_S2_ROW) {
        if (pad) {
            fg_dsp_dw_s2_pair(zero, fg_dsp_dw_s2_word(src), row);
        }
        for (int32_t k = pad + (n & ~3); k < pad + n; ++k) {
            const int8_t *at = src + (2 * k - pad) * step;
            fg_dsp_dw_s2_pair(fg_dsp_dw_s2_word(at), fg_dsp_dw_s2_word(at + step), row + 4 * k);
        }
        if (last) {
            fg_dsp_dw_s2_pair(fg_dsp_dw_s2_word(src + (pad + 2 * n) * step), zero, row + 4 * (pad + n));
        }
    }
}

/* The zero point's words into band row `row`'s words from..words - 1. */
static void fg_dsp_dw_s2_zeros(int32_t from, int32_t words, uint32_t zero, uint32_t *row) {
    for (int32_t k = from; k < words; ++k) {
        fg_dsp_dw_s2_pair(zero, zero, row + 4 * k);
    }
}

/* The zero point into every band row's column pairs past the image (no input row is extended into them). */
static void fg_dsp_dw_s2_padding(const fg_depthwise_conv2d_params *p, int32_t words, uint32_t zero, uint32_t *band) {
    const int32_t image = (p->pad_left + p->in_w + 1) / 2;  /* pairs that reach into the image */
    for (int32_t r = 0; r < FG_DSP_DW_S2_BAND_ROWS; ++r) {
        fg_dsp_dw_s2_zeros(image, words, zero, band + r * FG_DSP_DW_S2_ROW);
    }
}

/* The group's channel table entries (ten words each) in RAM, then its output rows, a band of rows at a time. */
static __attribute__((noinline)) void fg_dsp_dw_s2_group(const fg_depthwise_conv2d_params *p, const int8_t *image,
                                                         const uint32_t *table, int8_t *output, uint32_t zero,
                                                         uint32_t *band) {
    uint32_t k[40];
    memcpy(k, table, sizeof k);
    const int relu = p->requant.output_offset == -128;
    const int32_t words = p->out_w + 1, step = p->in_c;
    for (int32_t oy = 0; oy < p->out_h; oy += FG_DSP_DW_S2_BLOCK) {
        const int32_t rows = p->out_h - oy < FG_DSP_DW_S2_BLOCK ? p->out_h - oy : FG_DSP_DW_S2_BLOCK;
        const int32_t top = 2 * oy - p->pad_top;
        const int32_t end = top + 2 * rows + 1;  /* past the block's last input row */
        const int32_t first = top > 0 ? top : 0, last = end < p->in_h ? end : p->in_h;  /* its rows in the image */
        for (int32_t y = top; y < end; ++y) {
            if (y < first || y >= last) {
                fg_dsp_dw_s2_zeros(0, words, zero, band + (y - top) * FG_DSP_DW_S2_ROW);
            }
        }
        if (last > first) {
            fg_dsp_dw_s2_rows(image + first * p->in_w * step, p, last - first, words, zero,
                              band + (first - top) * FG_DSP_DW_S2_ROW);
        }
        for (int32_t c = 0; c < 4; ++c) {
            int8_t *out = output + oy * p->out_w * step + c;
            fg_dsp_dw_s2_eights(band + c, k + 10 * c, out, p->out_w, rows, step, relu);
        }
    }
}

static __attribute__((noinline)) void fg_dsp_dw_s2_run(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                                       int8_t *output) {
    uint32_t band[FG_DSP_DW_S2_BAND_ROWS * FG_DSP_DW_S2_ROW];
    const uint32_t *table = (const uint32_t *)p->packed;
    const uint32_t zero = (uint8_t)(int8_t)-p->requant.input_offset * 0x01010101u;
    fg_dsp_dw_s2_padding(p, p->out_w + 1, zero, band);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        int8_t *out = output + b * p->out_h * p->out_w * p->in_c;
        for (int32_t g = 0; g < p->in_c / 4; ++g) {
            fg_dsp_dw_s2_group(p, image + 4 * g, table + 40 * g, out + 4 * g, zero, band);
        }
    }
}

/* params->packed: per channel its doubled bias, multiplier, offset, shift and per filter row the doubled weight
 * words (w_i0, w_i1), (w_i1, w_i2). The generator checks: dilation 1, stride 2 both ways, in_c a multiple of 4, every
 * channel narrow, the clamp all of int8, out_w a multiple of 8 and out_w + 1 <= FG_DSP_DW_TAPS_S2_WORDS. An output
 * that overlaps the input other than a whole number of pixels before it runs the portable kernel. */
void fg_depthwise_conv2d_3x3_taps_s2_dsp(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    if (fg_depthwise_channel_major(p, input, output)) {
        fg_dsp_dw_s2_run(p, input, output);
    } else {
        fg_depthwise_conv2d_3x3_s8(p, input, output);
    }
}

#endif
