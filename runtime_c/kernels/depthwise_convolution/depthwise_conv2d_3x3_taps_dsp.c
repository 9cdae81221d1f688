#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#include <string.h>

#include "fg/isa/dsp.h"

/* Four channels at a time (a group), the whole image, stride_w 1: the input rows a window needs are sign-extended
 * once into a ring on the stack, each channel's row of the group its own run of int16, so that a word holds two
 * horizontally adjacent inputs of one channel, X = (x[2k], x[2k + 1]). With a filter row's weights as the words
 * A = (w0, w1) and C = (w1, w2), outputs p .. p + 3 of that row take (X01 = (x[p], x[p + 1]), ...):
 *   out_p   += SMLAD(X01, A) + SMLABT(X23, C)    out_p+1 += SMLATB(X01, A) + SMLAD(X23, C)
 *   out_p+2 += SMLAD(X23, A) + SMLABT(X45, C)    out_p+3 += SMLATB(X23, A) + SMLAD(X45, C)
 * 8 multiplies for 12 MACs, 6 per output instead of the ring kernel's 9. Weights and biases are doubled at generation
 * time (every channel narrow): the accumulator is 2 acc for SMMULR. The ring has five slots: input row y in slot
 * (y + pad_top) % 3 and slots 0 and 1 again as 3 and 4 (fg_dsp_ring_fill), so a window's rows are consecutive. */

#define FG_DSP_DW_TAPS_SLOT (4 * FG_DSP_DW_TAPS_COLUMNS)  /* int16 of a slot: the group's four channel rows */

/* One channel's table entry (ops/variants/dsp_taps.py's taps_table): its doubled bias, multiplier, offset, shift,
 * then per filter row i the doubled weight words A_i, C_i. */
typedef struct {
    int32_t bias, multiplier, offset, shift;
    uint32_t w[6];
} fg_dsp_dw_taps_channel;

/* A doubled accumulator's output: SMMLAR adding the offset where the output zero point is -128 (a negative value
 * clamps to -128 either way, so no rounding correction), else SMMULR, the correction and the offset; shift, SSAT. */
static inline __attribute__((always_inline)) int32_t fg_dsp_dw_taps_out(int32_t acc, const fg_dsp_dw_taps_channel *k,
                                                                        int relu) {
    int32_t v;
    if (relu) {
        __asm__("smmlar %0, %1, %2, %3" : "=r"(v) : "r"(acc), "r"(k->multiplier), "r"(k->offset));
    } else {
        v = fg_dsp_high_mul_doubled(acc, k->multiplier);
        v = v + k->offset + (v >> 31);
    }
    return __ssat(v >> k->shift, 8);
}

#define FG_DSP_DW_TAPS_STR(x) #x
#define FG_DSP_DW_TAPS_XSTR(x) FG_DSP_DW_TAPS_STR(x)
#define FG_DSP_DW_TAPS_ROW_BYTES FG_DSP_DW_TAPS_XSTR(FG_DSP_DW_TAPS_COLUMNS * 2)  /* a channel row's */
#define FG_DSP_DW_TAPS_PITCH FG_DSP_DW_TAPS_XSTR(FG_DSP_DW_TAPS_SLOT * 2)  /* bytes from a window row to the next */

/* Input word `word` of window row i: x + the pass's offset (the assembler symbol fg_dsp_dw_taps_xo: the loop runs
 * two passes, the second's words 8 bytes on). */
#define FG_DSP_DW_TAPS_AT_IN(pitch, i, word) \
    "[%[x], #(fg_dsp_dw_taps_xo + " #i " * " pitch " + 4 * " #word ")]"
#define FG_DSP_DW_TAPS_AT(i, word) FG_DSP_DW_TAPS_AT_IN(FG_DSP_DW_TAPS_PITCH, i, word)
#define FG_DSP_DW_TAPS_X_IN(pitch, r, i, word) "ldr " r ", " FG_DSP_DW_TAPS_AT_IN(pitch, i, word) "\n\t"
#define FG_DSP_DW_TAPS_X(r, i, word) FG_DSP_DW_TAPS_X_IN(FG_DSP_DW_TAPS_PITCH, r, i, word)
/* Filter row i's weight words A_i, C_i (r11, lr) and the row's input words (r8, r9 and, four outputs, r10): five or
 * four LDR back to back (each pipelined behind the one before on the M4). */
#define FG_DSP_DW_TAPS_LOAD(i, X45)                                                     \
    FG_DSP_DW_TAPS_X("r8", i, 0) FG_DSP_DW_TAPS_X("r9", i, 1) X45                       \
    "ldr r11, [%[k], #(16 + 8 * " #i ")]\n\t"                                          \
    "ldr lr, [%[k], #(20 + 8 * " #i ")]\n\t"
#define FG_DSP_DW_TAPS_X45(i) FG_DSP_DW_TAPS_X("r10", i, 2)
/* Outputs p, p + 1 (r4, r5) of row i; the first row adds the bias from r4, a0's chain last. */
#define FG_DSP_DW_TAPS_PAIR(i)                                                          \
    "smlatb r5, r8, r11, r5\n\t"                                                        \
    "smlad r4, r8, r11, r4\n\t"                                                         \
    "smlabt r4, r9, lr, r4\n\t"                                                         \
    "smlad r5, r9, lr, r5\n\t"
/* Outputs p + 2, p + 3 (r6, r7). */
#define FG_DSP_DW_TAPS_SECOND_PAIR                                                      \
    "smlad r6, r9, r11, r6\n\t"                                                         \
    "smlatb r7, r9, r11, r7\n\t"                                                        \
    "smlabt r6, r10, lr, r6\n\t"                                                        \
    "smlad r7, r10, lr, r7\n\t"
/* The first row's: every accumulator starts from the bias in r4. */
#define FG_DSP_DW_TAPS_FIRST_QUAD                                                       \
    "ldr r4, [%[k]]\n\t"                                                                \
    FG_DSP_DW_TAPS_LOAD(0, FG_DSP_DW_TAPS_X45(0))                                       \
    "smlatb r5, r8, r11, r4\n\t"                                                        \
    "smlad r6, r9, r11, r4\n\t"                                                         \
    "smlatb r7, r9, r11, r4\n\t"                                                        \
    "smlad r4, r8, r11, r4\n\t"                                                         \
    "smlabt r4, r9, lr, r4\n\t"                                                         \
    "smlad r5, r9, lr, r5\n\t"                                                          \
    "smlabt r6, r10, lr, r6\n\t"                                                        \
    "smlad r7, r10, lr, r7\n\t"
#define FG_DSP_DW_TAPS_QUAD(i) \
    FG_DSP_DW_TAPS_LOAD(i, FG_DSP_DW_TAPS_X45(i)) FG_DSP_DW_TAPS_PAIR(i) FG_DSP_DW_TAPS_SECOND_PAIR
/* The M7's order (FG_CORE_CORTEX_M7): the next filter row's loads (or the output stage's constants) each as soon as
 * its register is free and each alone between two MACs (llvm-mca's M7 issues a single load beside a MAC, two loads
 * side by side without one), so that they issue beside the MACs of this row instead of before them: the next row's
 * C word (lr, free only after this row's last MAC) after that row's first MAC (L0); the M4 and M33 keep the loads
 * back to back (pipelined there, 1 cycle each after the first). Same arithmetic. */
#define FG_DSP_DW_TAPS_K(r, offset) "ldr " r ", [%[k], #(" offset ")]\n\t"
#define FG_DSP_DW_TAPS_NEXT(i) \
    FG_DSP_DW_TAPS_X("r8", i, 0), FG_DSP_DW_TAPS_K("r11", "16 + 8 * " #i), FG_DSP_DW_TAPS_X("r9", i, 1), \
    FG_DSP_DW_TAPS_X("r10", i, 2)
#define FG_DSP_DW_TAPS_C(i) FG_DSP_DW_TAPS_K("lr", "20 + 8 * " #i)
#define FG_DSP_DW_TAPS_PIPE_ROW(L0, L8, L11, L9, L10)                                   \
    "smlad r4, r8, r11, r4\n\t" L0                                                      \
    "smlatb r5, r8, r11, r5\n\t" L8                                                     \
    "smlad r6, r9, r11, r6\n\t"                                                         \
    "smlatb r7, r9, r11, r7\n\t" L11                                                    \
    "smlabt r4, r9, lr, r4\n\t"                                                         \
    "smlad r5, r9, lr, r5\n\t" L9                                                       \
    "smlabt r6, r10, lr, r6\n\t"                                                        \
    "smlad r7, r10, lr, r7\n\t" L10
#define FG_DSP_DW_TAPS_PIPE_ROW_(...) FG_DSP_DW_TAPS_PIPE_ROW(__VA_ARGS__)
#define FG_DSP_DW_TAPS_PIPE_FIRST(L8, L11, L9, L10)                                     \
    "smlatb r5, r8, r11, r4\n\t"                                                        \
    "smlad r6, r9, r11, r4\n\t"                                                         \
    "smlatb r7, r9, r11, r4\n\t"                                                        \
    "smlad r4, r8, r11, r4\n\t" L8                                                      \
    "smlabt r4, r9, lr, r4\n\t" L11                                                     \
    "smlad r5, r9, lr, r5\n\t" L9                                                       \
    "smlabt r6, r10, lr, r6\n\t"                                                        \
    "smlad r7, r10, lr, r7\n\t" L10
#define FG_DSP_DW_TAPS_PIPE_FIRST_(...) FG_DSP_DW_TAPS_PIPE_FIRST(__VA_ARGS__)
#if defined(FG_CORE_CORTEX_M7)
/* The first row's input words (r8 .. r10) come loaded: by the previous pass's output stage (FG_DSP_DW_TAPS_PRELOAD,
 * 8 bytes on: the next pass's), or at a channel's start (FG_DSP_DW_TAPS_CHANNEL). */
#define FG_DSP_DW_TAPS_PRELOAD(r, word) "ldr " r ", [%[x], #(fg_dsp_dw_taps_xo + 8 + 4 * " #word ")]\n\t"
#define FG_DSP_DW_TAPS_CHANNEL "ldr r8, [%[x]]\n\tldr r9, [%[x], #4]\n\tldr r10, [%[x], #8]\n\t"
#define FG_DSP_DW_TAPS_PASS                                                             \
    "ldr r4, [%[k]]\n\t" FG_DSP_DW_TAPS_K("r11", "16") FG_DSP_DW_TAPS_K("lr", "20")     \
    FG_DSP_DW_TAPS_PIPE_FIRST_(FG_DSP_DW_TAPS_NEXT(1))                                  \
    FG_DSP_DW_TAPS_PIPE_ROW_(FG_DSP_DW_TAPS_C(1), FG_DSP_DW_TAPS_NEXT(2))               \
    FG_DSP_DW_TAPS_PIPE_ROW(FG_DSP_DW_TAPS_C(2), FG_DSP_DW_TAPS_K("r8", "4"),           \
                            "add r11, %[step], %[step], lsl #1\n\t", FG_DSP_DW_TAPS_K("r9", "8"), \
                            FG_DSP_DW_TAPS_K("r10", "12"))
#else
#define FG_DSP_DW_TAPS_CHANNEL ""
#define FG_DSP_DW_TAPS_PASS                                                             \
    FG_DSP_DW_TAPS_FIRST_QUAD FG_DSP_DW_TAPS_QUAD(1) FG_DSP_DW_TAPS_QUAD(2)              \
    FG_DSP_DW_TAPS_CONSTANTS "add r11, %[step], %[step], lsl #1\n\t"
#endif

/* The output stage of the four accumulators r4 .. r7 (multiplier r8, offset r9, shift r10), each step for all four
 * before the next (the M7's order staggers them, below): SMMULR, the rounding
 * correction of negative values, the offset; with the output zero point -128 (a negative value clamps to -128 either
 * way) SMMLAR adds the offset on the way. Then shift and SSAT. */
#define FG_DSP_DW_TAPS_EACH(OP) OP("r4") OP("r5") OP("r6") OP("r7")
#define FG_DSP_DW_TAPS_SMMULR(a) "smmulr " a ", " a ", r8\n\t"
#define FG_DSP_DW_TAPS_CORRECT(a) "add " a ", " a ", " a ", asr #31\n\t"
#define FG_DSP_DW_TAPS_OFFSET(a) "add " a ", " a ", r9\n\t"
#define FG_DSP_DW_TAPS_SMMLAR(a) "smmlar " a ", " a ", r8, r9\n\t"
#define FG_DSP_DW_TAPS_SHIFT(a) "asr " a ", " a ", r10\n\t"
#define FG_DSP_DW_TAPS_SSAT(a) "ssat " a ", #8, " a "\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The M7's order (FG_CORE_CORTEX_M7): the accumulators' steps staggered, each two instructions after the same
 * accumulator's step before, so that a high multiply issues beside a shift or an add and no step waits on its input;
 * the first two stores beside the last SSATs (the stores' address registers as FG_DSP_DW_TAPS_STORES'). */
#define FG_DSP_DW_TAPS_OUT                                                              \
    FG_DSP_DW_TAPS_SMMULR("r4") FG_DSP_DW_TAPS_SMMULR("r5") FG_DSP_DW_TAPS_SMMULR("r6")  \
    FG_DSP_DW_TAPS_CORRECT("r4") FG_DSP_DW_TAPS_SMMULR("r7") FG_DSP_DW_TAPS_CORRECT("r5") \
    FG_DSP_DW_TAPS_PRELOAD("r8", 0)                                                     \
    FG_DSP_DW_TAPS_OFFSET("r4") FG_DSP_DW_TAPS_CORRECT("r6") FG_DSP_DW_TAPS_OFFSET("r5")  \
    FG_DSP_DW_TAPS_SHIFT("r4") FG_DSP_DW_TAPS_CORRECT("r7") FG_DSP_DW_TAPS_OFFSET("r6")   \
    FG_DSP_DW_TAPS_SHIFT("r5") FG_DSP_DW_TAPS_OFFSET("r7") FG_DSP_DW_TAPS_SHIFT("r6")     \
    FG_DSP_DW_TAPS_PRELOAD("r9", 1)                                                     \
    FG_DSP_DW_TAPS_SSAT("r4") FG_DSP_DW_TAPS_SHIFT("r7") FG_DSP_DW_TAPS_SSAT("r5")        \
    FG_DSP_DW_TAPS_PRELOAD("r10", 2)                                                    \
    FG_DSP_DW_TAPS_SSAT("r6") "strb r4, [%[out]]\n\t" FG_DSP_DW_TAPS_SSAT("r7")          \
    "strb r5, [%[out], %[step]]\n\t"
#define FG_DSP_DW_TAPS_OUT_RELU                                                         \
    FG_DSP_DW_TAPS_SMMLAR("r4") FG_DSP_DW_TAPS_SMMLAR("r5") FG_DSP_DW_TAPS_SMMLAR("r6")  \
    FG_DSP_DW_TAPS_SHIFT("r4") FG_DSP_DW_TAPS_SMMLAR("r7") FG_DSP_DW_TAPS_SHIFT("r5")     \
    FG_DSP_DW_TAPS_PRELOAD("r8", 0)                                                     \
    FG_DSP_DW_TAPS_SHIFT("r6") FG_DSP_DW_TAPS_PRELOAD("r9", 1) FG_DSP_DW_TAPS_SSAT("r4")  \
    FG_DSP_DW_TAPS_SHIFT("r7") FG_DSP_DW_TAPS_PRELOAD("r10", 2)                         \
    FG_DSP_DW_TAPS_SSAT("r5") FG_DSP_DW_TAPS_SSAT("r6") "strb r4, [%[out]]\n\t"          \
    FG_DSP_DW_TAPS_SSAT("r7") "strb r5, [%[out], %[step]]\n\t"
/* The last two outputs stored (FG_DSP_DW_TAPS_STORES'), out moved on four outputs. */
#define FG_DSP_DW_TAPS_STORES                                                           \
    "strb r6, [%[out], %[step], lsl #1]\n\t"                                            \
    "strb r7, [%[out], r11]\n\t"                                                        \
    "add %[out], %[out], %[step], lsl #2\n\t"
#else
#define FG_DSP_DW_TAPS_OUT                                                              \
    FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_SMMULR) FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_CORRECT) \
    FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_OFFSET) FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_SHIFT)   \
    FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_SSAT)
#define FG_DSP_DW_TAPS_OUT_RELU                                                         \
    FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_SMMLAR) FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_SHIFT)   \
    FG_DSP_DW_TAPS_EACH(FG_DSP_DW_TAPS_SSAT)
#endif
#define FG_DSP_DW_TAPS_CONSTANTS                                                        \
    "ldr r8, [%[k], #4]\n\t"                                                            \
    "ldr r9, [%[k], #8]\n\t"                                                            \
    "ldr r10, [%[k], #12]\n\t"
#if !defined(FG_CORE_CORTEX_M7)
/* The four outputs stored at out + p * step (r11: 3 step), out moved on four outputs. */
#define FG_DSP_DW_TAPS_STORES                                                           \
    "strb r4, [%[out]]\n\t"                                                             \
    "strb r5, [%[out], %[step]]\n\t"                                                    \
    "strb r6, [%[out], %[step], lsl #1]\n\t"                                            \
    "strb r7, [%[out], r11]\n\t"                                                        \
    "add %[out], %[out], %[step], lsl #2\n\t"
#endif
/* The group's four channels in turn, each as passes of four outputs from x to end (x advances 8 bytes a pass), output
 * p at out + p * step, two passes a loop (the second's input words at x + 8: fg_dsp_dw_taps_xo; an odd count enters
 * at the second, x 8 bytes back); then x, end and out on to the next channel's row, first output and table entry.
 * The frame: the bytes x and out move over a channel's passes, the channels left (a word unused); the caller's local
 * `uint32_t frame[4]`, which the assembler checks is at sp (FG_DSP_TILE_STORE's pattern, fg/isa/dsp.h), so that the
 * stack bound counts it. */
#define FG_DSP_DW_TAPS_QUADS_ASM(OUT)                                                   \
    __asm__ volatile(                                                                   \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t" \
        "2:\n\t" FG_DSP_DW_TAPS_CHANNEL                                                 \
        "ldr r4, [sp]\n\t"                                                              \
        "tst r4, #8\n\t"                                                                \
        "beq 1f\n\t"                                                                    \
        "sub %[x], %[x], #8\n\t"                                                        \
        "b 3f\n"                                                                        \
        "1:\n\t"                                                                        \
        ".set fg_dsp_dw_taps_xo, 0\n\t"                                                 \
        FG_DSP_DW_TAPS_PASS OUT FG_DSP_DW_TAPS_STORES                                   \
        ".set fg_dsp_dw_taps_xo, 8\n"                                                   \
        "3:\n\t"                                                                        \
        FG_DSP_DW_TAPS_PASS OUT FG_DSP_DW_TAPS_STORES                                   \
        "add %[x], %[x], #16\n\t"                                                       \
        "cmp %[x], %[end]\n\t"                                                          \
        "bne 1b\n\t"                                                                    \
        "ldm sp, {r4-r6}\n\t"                                                           \
        "add %[x], %[x], #" FG_DSP_DW_TAPS_ROW_BYTES "\n\t"                             \
        "add %[end], %[end], #" FG_DSP_DW_TAPS_ROW_BYTES "\n\t"                         \
        "sub %[x], %[x], r4\n\t"                                                        \
        "sub %[out], %[out], r5\n\t"                                                    \
        "add %[out], %[out], #1\n\t"                                                    \
        "add %[k], %[k], #40\n\t"                                                       \
        "subs r6, r6, #1\n\t"                                                           \
        "str r6, [sp, #8]\n\t"                                                          \
        "bne 2b\n\t"                                                                    \
        : [x] "+r"(rx), [out] "+r"(ro), [k] "+r"(rk), [end] "+r"(re), [frame] "+m"(frame) \
        : [step] "r"(rs)                                                                \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory")

/* `quads` (>= 1) passes of four outputs of each of the group's channels: x the first window's top left in channel 0's
 * row of the window's first slot (its next rows FG_DSP_DW_TAPS_PITCH bytes on, the next channel's row
 * FG_DSP_DW_TAPS_ROW_BYTES on), output p of channel j at out[p * step + j]. Per pass 19 LDR, 24 SMLAD/SMLAxy, the four
 * outputs' stage and STRB. */
static __attribute__((noinline)) void fg_dsp_dw_taps_quads(const int16_t *x, const fg_dsp_dw_taps_channel *k,
                                                           int8_t *out, int32_t step, int32_t quads, int relu) {
    register const int16_t *rx __asm__("r0") = x;
    register const fg_dsp_dw_taps_channel *rk __asm__("r1") = k;
    register int8_t *ro __asm__("r2") = out;
    register int32_t rs __asm__("r3") = step;
    register const int16_t *re __asm__("r12") = x + 4 * quads;
    uint32_t frame[4] = {8 * (uint32_t)quads, 4 * (uint32_t)(quads * step), 4, 0};  /* at sp */
    if (relu) {
        FG_DSP_DW_TAPS_QUADS_ASM(FG_DSP_DW_TAPS_OUT_RELU);
    } else {
        FG_DSP_DW_TAPS_QUADS_ASM(FG_DSP_DW_TAPS_OUT);
    }
}

#if !defined(FG_CORE_CORTEX_M7)
static void fg_dsp_dw_taps_hexas(const int16_t *x, const fg_dsp_dw_taps_channel *k, int8_t *out, int32_t step,
                                 int32_t passes, int relu);
#endif

/* Outputs p, p + 1 of one channel (x as fg_dsp_dw_taps_quads'): their accumulators into acc[0], acc[1]. */
static inline __attribute__((always_inline)) void fg_dsp_dw_taps_pair(const int16_t *x,
                                                                      const fg_dsp_dw_taps_channel *k,
                                                                      int32_t acc[2]) {
    register const int16_t *rx __asm__("r0") = x;
    register const fg_dsp_dw_taps_channel *rk __asm__("r1") = k;
    register int32_t a0 __asm__("r4");
    register int32_t a1 __asm__("r5");
    __asm__(".set fg_dsp_dw_taps_xo, 0\n\t"
            "ldr r4, [%[k]]\n\t"
            "mov r5, r4\n\t"
            FG_DSP_DW_TAPS_LOAD(0, "") FG_DSP_DW_TAPS_PAIR(0)
            FG_DSP_DW_TAPS_LOAD(1, "") FG_DSP_DW_TAPS_PAIR(1)
            FG_DSP_DW_TAPS_LOAD(2, "") FG_DSP_DW_TAPS_PAIR(2)
            : "=&r"(a0), "=&r"(a1)
            : [x] "r"(rx), [k] "r"(rk), "m"(*(const int16_t(*)[3 * FG_DSP_DW_TAPS_SLOT])x)
            : "r8", "r9", "r11", "lr");
    acc[0] = a0;
    acc[1] = a1;
}

/* One output row of the group's four channels: `count` outputs each, on the M4 and M33 six a pass
 * (fg_dsp_dw_taps_hexas), then four a pass (fg_dsp_dw_taps_quads), then a pair; an odd count's last pair stores its
 * first output only (the ring holds the column its second reads). */
static __attribute__((noinline)) void fg_dsp_dw_taps_rows(const int16_t *x, const fg_dsp_dw_taps_channel *k,
                                                          int8_t *out, int32_t step, int32_t count, int relu) {
#if !defined(FG_CORE_CORTEX_M7)
    const int32_t hexas = count / 6;
    if (hexas) {
        fg_dsp_dw_taps_hexas(x, k, out, step, hexas, relu);
        x += 6 * hexas;
        out += 6 * hexas * step;
        count -= 6 * hexas;
    }
#endif
    const int32_t quads = count >> 2;
    if (quads) {
        fg_dsp_dw_taps_quads(x, k, out, step, quads, relu);
    }
    x += 4 * quads;
    out += 4 * quads * step;
    for (int32_t j = 0; j < 4 && (count & 3); ++j) {
        const int16_t *xj = x + j * FG_DSP_DW_TAPS_COLUMNS;
        int8_t *o = out + j;
        for (int32_t left = count & 3; left > 0; left -= 2, xj += 2, o += 2 * step) {
            int32_t acc[2];
            fg_dsp_dw_taps_pair(xj, k + j, acc);
            o[0] = (int8_t)fg_dsp_dw_taps_out(acc[0], k + j, relu);
            if (left > 1) {
                o[step] = (int8_t)fg_dsp_dw_taps_out(acc[1], k + j, relu);
            }
        }
    }
}

/* The group's four table entries (40 words, word aligned) into k: five LDM/STM of eight words (memcpy's word loop
 * takes a quarter more). In RAM: every output reads them, flash would add wait states. */
static inline __attribute__((always_inline)) void fg_dsp_dw_taps_entries_ldm(fg_dsp_dw_taps_channel k[4],
                                                                              const fg_dsp_dw_taps_channel *entries) {
    const fg_dsp_dw_taps_channel *from = entries;
    fg_dsp_dw_taps_channel *to = k;
    __asm__ volatile(
        ".rept 5\n\t"
        "ldm %[from]!, {r4-r11}\n\t"
        "stm %[to]!, {r4-r11}\n\t"
        ".endr\n\t"
        : [from] "+r"(from), [to] "+r"(to), "=m"(*(fg_dsp_dw_taps_channel(*)[4])k)
        : "m"(*(const fg_dsp_dw_taps_channel(*)[4])entries)
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11");
}

/* The ring's copy of them: on the M7 memcpy (its ring loop keeps more registers than the eight LDM/STM leave:
 * vww_96_int8's 48-wide layer ESTIMATED +432 cycles with LDM/STM), elsewhere fg_dsp_dw_taps_entries_ldm. */
static inline __attribute__((always_inline)) void fg_dsp_dw_taps_entries(fg_dsp_dw_taps_channel k[4],
                                                                          const fg_dsp_dw_taps_channel *entries) {
#if defined(FG_CORE_CORTEX_M7)
    memcpy(k, entries, 4 * sizeof *k);
#else
    fg_dsp_dw_taps_entries_ldm(k, entries);
#endif
}

/* What the group's ring fill needs. */
typedef struct {
    const fg_depthwise_conv2d_params *p;
    const int8_t *group;  /* the group's first channel in the image */
    int16_t *ring;
    int16_t zero_point;
} fg_dsp_dw_taps_fill_context;

/* A pixel's (c0, c2) and (c1, c3) into one column of a slot's four channel rows, at. */
static inline __attribute__((always_inline)) void fg_dsp_dw_taps_column(uint32_t even, uint32_t odd, int16_t *at) {
    at[0] = (int16_t)even;
    at[FG_DSP_DW_TAPS_COLUMNS] = (int16_t)odd;
    at[2 * FG_DSP_DW_TAPS_COLUMNS] = (int16_t)(even >> 16);
    at[3 * FG_DSP_DW_TAPS_COLUMNS] = (int16_t)(odd >> 16);
}

/* Pixel v's four channels (one word of the image) into column `column` of the four channel rows at dst (and copy's,
 * unless NULL). */
static inline __attribute__((always_inline)) void fg_dsp_dw_taps_pixel(uint32_t v, int16_t *dst, int16_t *copy,
                                                                        int32_t column) {
    const uint32_t even = __sxtb16(v), odd = fg_dsp_odd_s8x2(v);  /* (c0, c2), (c1, c3) */
    fg_dsp_dw_taps_column(even, odd, dst + column);
    if (copy) {
        fg_dsp_dw_taps_column(even, odd, copy + column);
    }
}

#if defined(FG_CORE_CORTEX_M7)
/* The M7's order (FG_CORE_CORTEX_M7): paired first and widened after as the M4's (below), each word stored (COPY
 * COPIED: and copied) as soon as it is widened, at offsets and one ADD (llvm-mca's M7 charges a post-indexed STR ~3
 * cycles): llvm-mca cortex-m7 12 -> 10 cycles a pair, 18 -> 15 with the copy, where widening first took two
 * instructions more. */
#define FG_DSP_DW_TAPS_STORE_AT(row, to, r, i) "str " r ", [" to ", #(" #i " * " row ")]\n\t"
#define FG_DSP_DW_TAPS_STORE_ALONE(row, r, i) FG_DSP_DW_TAPS_STORE_AT(row, "%[dst]", r, i)
#define FG_DSP_DW_TAPS_STORE_COPIED(row, r, i) \
    FG_DSP_DW_TAPS_STORE_AT(row, "%[dst]", r, i) FG_DSP_DW_TAPS_STORE_AT(row, "%[copy]", r, i)
#define FG_DSP_DW_TAPS_ADVANCE_ALONE ""
#define FG_DSP_DW_TAPS_ADVANCE_COPIED "add %[copy], %[copy], #4\n\t"
/* r8 .. r11 into a column of the four channel rows at `to` (FG_DSP_DW_TAPS_STORE_IN: and `to` on a column pair). */
#define FG_DSP_DW_TAPS_STORE_WORDS(row, to)                                             \
    FG_DSP_DW_TAPS_STORE_AT(row, to, "r8", 0) FG_DSP_DW_TAPS_STORE_AT(row, to, "r9", 1) \
    FG_DSP_DW_TAPS_STORE_AT(row, to, "r10", 2) FG_DSP_DW_TAPS_STORE_AT(row, to, "r11", 3)
#define FG_DSP_DW_TAPS_STORE_IN(row, to) FG_DSP_DW_TAPS_STORE_WORDS(row, to) "add " to ", " to ", #4\n\t"
/* A pair of pixels from src (src on two pixels) widened into the four channel rows' words r8 .. r11, each stored by
 * STORE(row, r, i) as soon as it is widened; COUNT: the pass's count, between the loads and the PKHs. */
#define FG_DSP_DW_TAPS_PAIR_IN(row, COUNT, STORE)                                       \
    "ldr r4, [%[src]]\n\t"                                                              \
    "ldr r6, [%[src], %[step]]\n\t"                                                     \
    COUNT                                                                               \
    "add %[src], %[src], %[step], lsl #1\n\t"                                           \
    "pkhbt r5, r4, r6, lsl #16\n\t"                                                     \
    "pkhtb r7, r6, r4, asr #16\n\t"                                                     \
    "sxtb16 r8, r5\n\t"                                                                 \
    "sxtb16 r9, r5, ror #8\n\t"                                                         \
    STORE(row, "r8", 0)                                                                 \
    "sxtb16 r10, r7\n\t"                                                                \
    STORE(row, "r9", 1)                                                                 \
    "sxtb16 r11, r7, ror #8\n\t"                                                        \
    STORE(row, "r10", 2)                                                                \
    STORE(row, "r11", 3)
#define FG_DSP_DW_TAPS_EXTEND_PASS_IN(row, COPY)                                        \
    FG_DSP_DW_TAPS_PAIR_IN(row, "subs %[pairs], %[pairs], #1\n\t", FG_DSP_DW_TAPS_STORE_##COPY) \
    FG_DSP_DW_TAPS_ADVANCE_##COPY                                                       \
    "add %[dst], %[dst], #4\n\t"
/* `pairs` (>= 1) passes. */
#define FG_DSP_DW_TAPS_EXTEND_LOOP_IN(row, COPY) "4:\n\t" FG_DSP_DW_TAPS_EXTEND_PASS_IN(row, COPY) "bne 4b\n\t"
#else
#define FG_DSP_DW_TAPS_STORE_IN(row, to)                                                \
    "str r9, [" to ", #" row "]\n\t"                                                    \
    "str r10, [" to ", #(2 * " row ")]\n\t"                                             \
    "str r11, [" to ", #(3 * " row ")]\n\t"                                             \
    "str r8, [" to "], #4\n\t"
#define FG_DSP_DW_TAPS_COPY_ALONE ""
#define FG_DSP_DW_TAPS_COPY_COPIED FG_DSP_DW_TAPS_STORE_IN(FG_DSP_DW_TAPS_ROW_BYTES, "%[copy]")
/* The M4's and M33's: the two pixels' bytes paired by channel first, (c0, c1, c0', c1') and (c2, c3, c2', c3') (two
 * PKH), then each channel's word one SXTB16 (four): six instructions where extending first takes eight; COPY COPIED:
 * the words copied too. COUNT: the pass's count, between the loads and the PKHs (the loads pipelined behind the stores
 * before). */
#define FG_DSP_DW_TAPS_EXTEND_PASS_IN(row, COPY, COUNT)                                 \
    "ldr r4, [%[src]]\n\t"                                                              \
    "ldr r6, [%[src], %[step]]\n\t"                                                     \
    "add %[src], %[src], %[step], lsl #1\n\t"                                           \
    COUNT                                                                               \
    "pkhbt r5, r4, r6, lsl #16\n\t"                                                     \
    "pkhtb r7, r6, r4, asr #16\n\t"                                                     \
    "sxtb16 r8, r5\n\t"                                                                 \
    "sxtb16 r9, r5, ror #8\n\t"                                                         \
    "sxtb16 r10, r7\n\t"                                                                \
    "sxtb16 r11, r7, ror #8\n\t"                                                        \
    FG_DSP_DW_TAPS_STORE_IN(row, "%[dst]")                                              \
    FG_DSP_DW_TAPS_COPY_##COPY
/* `pairs` (>= 1) passes, two a loop (an odd count enters at the second, whose SUBS counts both: the branch back while
 * pairs are left, BGT). */
#define FG_DSP_DW_TAPS_EXTEND_LOOP_IN(row, COPY)                                        \
    "tst %[pairs], #1\n\t"                                                              \
    "bne 5f\n"                                                                          \
    "4:\n\t"                                                                            \
    FG_DSP_DW_TAPS_EXTEND_PASS_IN(row, COPY, "")                                        \
    "5:\n\t"                                                                            \
    FG_DSP_DW_TAPS_EXTEND_PASS_IN(row, COPY, "subs %[pairs], %[pairs], #2\n\t")         \
    "bgt 4b\n\t"
#endif
#define FG_DSP_DW_TAPS_EXTEND_LOOP(COPY) FG_DSP_DW_TAPS_EXTEND_LOOP_IN(FG_DSP_DW_TAPS_ROW_BYTES, COPY)
/* Pairs of pixels (`pairs` >= 1) from src into dst's channel rows (COPY COPIED: and copy's; ALONE: dst's only): 2 LDR,
 * 2 PKH and 4 SXTB16 into a word per channel, 4 STR per row written; the pass in the core's order
 * (FG_DSP_DW_TAPS_EXTEND_LOOP). */
#define FG_DSP_DW_TAPS_EXTEND_ASM(COPY, ...)                                            \
    __asm__ volatile(                                                                   \
        FG_DSP_DW_TAPS_EXTEND_LOOP(COPY)                                                \
        : [src] "+r"(src), [dst] "+r"(d), [pairs] "+r"(pairs), ##__VA_ARGS__            \
        : [step] "r"(step)                                                              \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory")
/* Input row `src` of the group (n pixels, step bytes apart) into the channel rows at dst from column `first`, and into
 * copy's too unless it is NULL: an odd first column's pixel alone, then pairs of pixels (FG_DSP_DW_TAPS_EXTEND_ASM: a
 * word per channel row), then an odd last pixel. */
static __attribute__((noinline)) void fg_dsp_dw_taps_extend(const int8_t *src, int32_t step, int32_t n, int32_t first,
                                                            int16_t *dst, int16_t *copy) {
    uint32_t v;
    if (first & 1) {
        memcpy(&v, src, sizeof v);
        fg_dsp_dw_taps_pixel(v, dst, copy, first);
        src += step;
        ++first;
        --n;
    }
    int32_t pairs = n >> 1;
    int16_t *d = dst + first, *c = copy ? copy + first : 0;
    if (pairs && copy) {
        FG_DSP_DW_TAPS_EXTEND_ASM(COPIED, [copy] "+r"(c));
    } else if (pairs) {
        FG_DSP_DW_TAPS_EXTEND_ASM(ALONE);
    }
    if (n & 1) {
        memcpy(&v, src, sizeof v);
        fg_dsp_dw_taps_pixel(v, dst, copy, first + n - 1);
    }
}
/* A small image's layout: FG_DSP_DW_TAPS_SMALL_COLUMNS columns a channel row (the ring's four channel rows a slot). */
#define FG_DSP_DW_TAPS_SMALL_COLUMNS 16
#define FG_DSP_DW_TAPS_SMALL_SLOT (4 * FG_DSP_DW_TAPS_SMALL_COLUMNS)
#define FG_DSP_DW_TAPS_SMALL_ROW_BYTES FG_DSP_DW_TAPS_XSTR(FG_DSP_DW_TAPS_SMALL_COLUMNS * 2)
#define FG_DSP_DW_TAPS_SMALL_PITCH FG_DSP_DW_TAPS_XSTR(FG_DSP_DW_TAPS_SMALL_SLOT * 2)
/* A small image's input rows (n >= 2 pixels after one padding column: SAME) into consecutive slots from dst: whole
 * words throughout, the padding's halves from zero_points (the zero point in both): a row's first pixel's beside the
 * left padding (PKH with zero_points), the pixels after it as pairs (FG_DSP_DW_TAPS_EXTEND_PASS), and with n even
 * (RIGHT: FG_DSP_DW_TAPS_SMALL_RIGHT) its last pixel's beside the right padding column; the rows' pixels follow each
 * other in the image (src: step bytes from one to the next throughout). The frame: pairs, the end of the last slot's
 * row; the caller's local `uint32_t frame[2]`, checked at sp as FG_DSP_DW_TAPS_QUADS_ASM's. */
#define FG_DSP_DW_TAPS_SMALL_RIGHT                                                      \
    "ldr r4, [%[src]]\n\t"                                                              \
    "add %[src], %[src], %[step]\n\t"                                                   \
    "sxtb16 r5, r4, ror #8\n\t"                                                         \
    "sxtb16 r4, r4\n\t"                                                                 \
    "pkhbt r8, r4, %[zp]\n\t"                                                           \
    "pkhbt r9, r5, %[zp]\n\t"                                                           \
    "pkhtb r10, %[zp], r4, asr #16\n\t"                                                 \
    "pkhtb r11, %[zp], r5, asr #16\n\t"                                                 \
    FG_DSP_DW_TAPS_STORE_IN(FG_DSP_DW_TAPS_SMALL_ROW_BYTES, "%[dst]")
/* A row's first pixel beside the left padding into r8 .. r11 (src on a pixel). */
#define FG_DSP_DW_TAPS_SMALL_LEFT                                                       \
    "ldr r6, [%[src]]\n\t"                                                              \
    "add %[src], %[src], %[step]\n\t"                                                   \
    "sxtb16 r7, r6, ror #8\n\t"                                                         \
    "sxtb16 r6, r6\n\t"                                                                 \
    "pkhbt r8, %[zp], r6, lsl #16\n\t"                                                  \
    "pkhbt r9, %[zp], r7, lsl #16\n\t"                                                  \
    "pkhtb r10, r6, %[zp]\n\t"                                                          \
    "pkhtb r11, r7, %[zp]\n\t"
#define FG_DSP_DW_TAPS_SMALL_ROWS_ASM(RIGHT)                                            \
    __asm__ volatile(                                                                   \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n" \
        "3:\n\t"                                                                        \
        "mov %[dst], %[slot]\n\t"                                                       \
        "ldr %[pairs], [sp]\n\t"                                                        \
        FG_DSP_DW_TAPS_SMALL_LEFT                                                       \
        FG_DSP_DW_TAPS_STORE_IN(FG_DSP_DW_TAPS_SMALL_ROW_BYTES, "%[dst]")              \
        "cmp %[pairs], #0\n\t"                                                          \
        "beq 2f\n\t"                                                                    \
        FG_DSP_DW_TAPS_EXTEND_LOOP_IN(FG_DSP_DW_TAPS_SMALL_ROW_BYTES, ALONE)               \
        "\n2:\n\t"                                                                      \
        RIGHT                                                                           \
        "ldr r4, [sp, #4]\n\t"                                                          \
        "add %[slot], %[slot], #" FG_DSP_DW_TAPS_SMALL_PITCH "\n\t"                     \
        "cmp %[slot], r4\n\t"                                                           \
        "bne 3b\n\t"                                                                    \
        : [src] "+r"(src), [dst] "+r"(d), [pairs] "+r"(left), [slot] "+r"(slot), [frame] "+m"(frame) \
        : [step] "r"(step), [zp] "r"(zero_points)                                       \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory")
#if defined(FG_CORE_CORTEX_M7)
/* The M7's rows of five (kws_ref_model's): each row whole, its words stored from the slot (the first pixel's, then
 * the two pairs' columns 1 and 2), no counts, the end in a register: 39 instructions a row where the loop of pairs
 * takes 53 (llvm-mca cortex-m7: 37 -> 32 cycles). */
#define FG_DSP_DW_TAPS_STORE_PAIR1(row, r, i) "str " r ", [%[slot], #(4 + " #i " * " row ")]\n\t"
#define FG_DSP_DW_TAPS_STORE_PAIR2(row, r, i) "str " r ", [%[slot], #(8 + " #i " * " row ")]\n\t"
static void fg_dsp_dw_taps_small_fives(const int8_t *src, int32_t step, int32_t rows, uint32_t zero_points,
                                       int16_t *dst) {
    int16_t *slot = dst;
    const int16_t *end = dst + rows * FG_DSP_DW_TAPS_SMALL_SLOT;
    __asm__ volatile(
        "3:\n\t"
        FG_DSP_DW_TAPS_SMALL_LEFT FG_DSP_DW_TAPS_STORE_WORDS(FG_DSP_DW_TAPS_SMALL_ROW_BYTES, "%[slot]")
        FG_DSP_DW_TAPS_PAIR_IN(FG_DSP_DW_TAPS_SMALL_ROW_BYTES, "", FG_DSP_DW_TAPS_STORE_PAIR1)
        FG_DSP_DW_TAPS_PAIR_IN(FG_DSP_DW_TAPS_SMALL_ROW_BYTES, "", FG_DSP_DW_TAPS_STORE_PAIR2)
        "add %[slot], %[slot], #" FG_DSP_DW_TAPS_SMALL_PITCH "\n\t"
        "cmp %[slot], %[end]\n\t"
        "bne 3b\n\t"
        : [src] "+r"(src), [slot] "+r"(slot)
        : [step] "r"(step), [zp] "r"(zero_points), [end] "r"(end)
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "cc", "memory");
}
#endif
static __attribute__((noinline)) void fg_dsp_dw_taps_small_rows(const int8_t *src, int32_t step, int32_t rows,
                                                                int32_t n, uint32_t zero_points, int16_t *dst) {
#if defined(FG_CORE_CORTEX_M7)
    if (n == 5) {
        fg_dsp_dw_taps_small_fives(src, step, rows, zero_points, dst);
        return;
    }
#endif
    int16_t *d = dst, *slot = dst;
    int32_t left = 0;
    uint32_t frame[2] = {(uint32_t)((n - 1) >> 1), (uint32_t)(dst + rows * FG_DSP_DW_TAPS_SMALL_SLOT)};  /* at sp */
    if (n & 1) {
        FG_DSP_DW_TAPS_SMALL_ROWS_ASM("");
    } else {
        frame[0] = (uint32_t)((n - 2) >> 1);
        FG_DSP_DW_TAPS_SMALL_ROWS_ASM(FG_DSP_DW_TAPS_SMALL_RIGHT);
    }
}
#undef FG_DSP_DW_TAPS_SMALL_ROWS_ASM
#undef FG_DSP_DW_TAPS_SMALL_RIGHT
#undef FG_DSP_DW_TAPS_EXTEND_ASM
#undef FG_DSP_DW_TAPS_EXTEND_PASS_IN
#undef FG_DSP_DW_TAPS_EXTEND_LOOP_IN
#undef FG_DSP_DW_TAPS_EXTEND_LOOP
#undef FG_DSP_DW_TAPS_STORE_IN

/* A padding row: the zero point in the n image columns from `first` on of a slot's four rows (and copy's), a word
 * (two columns) at a time from the even column at or before `first` to the odd one at or after first + n - 1: the
 * columns beside the image hold the zero point already (fg_dsp_dw_taps_padding) or are not read. Out of line, where
 * the row pointers stay in registers. */
static __attribute__((noinline)) void fg_dsp_dw_taps_pad(int32_t first, int32_t n, int16_t zero_point, int16_t *row,
                                                         int16_t *copy) {
    const uint32_t pair = (uint16_t)zero_point * 0x10001u;
    const int32_t begin = first >> 1, end = (first + n + 1) >> 1;
    for (int32_t j = 0; j < 4; ++j) {
        uint32_t *words = (uint32_t *)(row + j * FG_DSP_DW_TAPS_COLUMNS) + begin;
        uint32_t *copied = copy ? (uint32_t *)(copy + j * FG_DSP_DW_TAPS_COLUMNS) + begin : words;
        const uint32_t *last = words + (end - begin);  /* n >= 1: one word at least */
        do {
            *words++ = pair;
            *copied++ = pair;
        } while (words < last);
    }
}

/* Input row y of the group into ring slot `slot` (and slot + 3 for slots 0 and 1); a padding row: the zero point. */
static void fg_dsp_dw_taps_fill(void *context, int32_t y, int32_t slot) {
    const fg_dsp_dw_taps_fill_context *c = (const fg_dsp_dw_taps_fill_context *)context;
    const fg_depthwise_conv2d_params *p = c->p;
    int16_t *row = c->ring + slot * FG_DSP_DW_TAPS_SLOT, *copy = slot < 2 ? row + 3 * FG_DSP_DW_TAPS_SLOT : 0;
    if (y >= 0 && y < p->in_h) {
        fg_dsp_dw_taps_extend(c->group + y * p->in_w * p->in_c, p->in_c, p->in_w, p->pad_left, row, copy);
        return;
    }
    fg_dsp_dw_taps_pad(p->pad_left, p->in_w, c->zero_point, row, copy);
}

/* The zero point into the columns of every ring row (`slots` of four channel rows of `columns`) that the windows read
 * and no input row is extended into: the padding's, and what the last pair reads past them (ops/variants/dsp_taps.py's
 * taps_columns). Once per call: a row stage calls for one output row at a time, so the rest of the ring is never
 * touched. Inline: each caller's constant columns. */
static inline __attribute__((always_inline)) void fg_dsp_dw_taps_padding(const fg_depthwise_conv2d_params *p,
                                                                          int16_t zero_point, int16_t *ring,
                                                                          int32_t slots, int32_t columns) {
    const int32_t right = p->pad_left + p->in_w, pairs_end = 2 * ((p->out_w + 1) / 2) + 2;
    const int32_t end = right > pairs_end ? right : pairs_end;
    for (int32_t row = 0; row < slots * 4; ++row, ring += columns) {
        for (int32_t x = 0; x < p->pad_left; ++x) {
            ring[x] = zero_point;
        }
        for (int32_t x = right; x < end; ++x) {
            ring[x] = zero_point;
        }
    }
}

static __attribute__((noinline)) void fg_dsp_dw_taps_run(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                                         int8_t *output) {
    const fg_dsp_dw_taps_channel *table = (const fg_dsp_dw_taps_channel *)p->packed;
    const int16_t zero_point = (int16_t)-p->requant.input_offset;
    const int relu = p->requant.output_offset == -128;
    uint32_t words[5 * FG_DSP_DW_TAPS_SLOT / 2];  /* the ring, word aligned */
    int16_t *ring = (int16_t *)words;
    fg_dsp_dw_taps_padding(p, zero_point, ring, 5, FG_DSP_DW_TAPS_COLUMNS);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * p->in_c;
        int8_t *out = output + b * p->out_h * p->out_w * p->in_c;
        for (int32_t g = 0; g < p->in_c / 4; ++g) {
            fg_dsp_dw_taps_channel k[4];
            fg_dsp_dw_taps_entries(k, table + 4 * g);
            fg_dsp_dw_taps_fill_context context = {p, image + 4 * g, ring, zero_point};
            fg_dsp_ring cursor = fg_dsp_ring_start(p->pad_top);
            for (int32_t oy = 0; oy < p->out_h; ++oy) {
                fg_dsp_ring_fill(&cursor, oy * p->stride_h - p->pad_top, fg_dsp_dw_taps_fill, &context);
                fg_dsp_dw_taps_rows(ring + cursor.top * FG_DSP_DW_TAPS_SLOT, k, out + oy * p->out_w * p->in_c + 4 * g,
                                    p->in_c, p->out_w, relu);
                fg_dsp_ring_advance(&cursor, p->stride_h);
            }
        }
    }
}

/* A small image of three, five, six or twelve outputs a row (ops/variants/dsp_taps.py's taps_small), stride 1, SAME,
 * whole: the group's padded rows in consecutive slots of FG_DSP_DW_TAPS_SMALL_COLUMNS a channel row (window row i of
 * output row y in slot y + i: no ring, no copies), then each channel's output rows, six outputs a pass (three, five:
 * the others' instructions left out): per filter row the weight words A, C and the input words X01 .. X67 by turns
 * in r12, lr, 12 multiplies:
 *   out0 = SMLAD(X01, A) + SMLABT(X23, C)    out1 = SMLATB(X01, A) + SMLAD(X23, C)    (out2, out3 from X23 and X45,
 *   out4, out5 from X45 and X67 alike). The first row's first touches add the bias (r4). */
#define FG_DSP_DW_TAPS_SMALL_SLOTS 28  /* padded rows: kws_ref_model's 25 x 5 (3,584 bytes of stack) */
/* Input word `word` of window row i, the rows fg_dsp_dw_taps_pitch bytes apart (an assembler symbol: the small image's
 * slots or the ring's, set by FG_DSP_DW_TAPS_HEXA_ASM). */
#define FG_DSP_DW_TAPS_SX(r, i, word) FG_DSP_DW_TAPS_X_IN("fg_dsp_dw_taps_pitch", r, i, word)
#if defined(FG_CORE_CORTEX_M7)
/* The M7's (FG_CORE_CORTEX_M7): a filter row's weight words and its input words two at a time (LDRD: one instruction
 * and, in llvm-mca's M7, one cycle alone, as the two LDR took right before their MACs), X23 and X67 in Y
 * (FG_DSP_DW_TAPS_Y_W: r9 in a pass of five, which keeps the channel's end in lr, else lr). */
#define FG_DSP_DW_TAPS_Y_5 "r9"
#define FG_DSP_DW_TAPS_Y_6 "lr"
#define FG_DSP_DW_TAPS_SXD(i, word, W) \
    "ldrd r12, " FG_DSP_DW_TAPS_Y_##W ", " FG_DSP_DW_TAPS_AT_IN("fg_dsp_dw_taps_pitch", i, word) "\n\t"
#define FG_DSP_DW_TAPS_HEXA_LOADS(i, W) \
    "ldrd r10, r11, [%[k], #(16 + 8 * " #i ")]\n\t" FG_DSP_DW_TAPS_SXD(i, 0, W)
#define FG_DSP_DW_TAPS_HEXA_X4567(i, W) FG_DSP_DW_TAPS_SXD(i, 2, W)
/* The output stage's multiplier, offset and shift (r10 .. r12); a pass of five with the bias (r9 free: one LDM). */
#define FG_DSP_DW_TAPS_HEXA_CONSTANTS_5 "ldm %[k], {r9, r10, r11, r12}\n\t"
#define FG_DSP_DW_TAPS_HEXA_CONSTANTS_6 "ldrd r10, r11, [%[k], #4]\n\tldr r12, [%[k], #12]\n\t"
#else
#define FG_DSP_DW_TAPS_Y_3 "lr"
#define FG_DSP_DW_TAPS_Y_5 "lr"
#define FG_DSP_DW_TAPS_Y_6 "lr"
#define FG_DSP_DW_TAPS_HEXA_LOADS(i, W)                                                 \
    "ldr r10, [%[k], #(16 + 8 * " #i ")]\n\t"                                          \
    "ldr r11, [%[k], #(20 + 8 * " #i ")]\n\t"                                          \
    FG_DSP_DW_TAPS_SX("r12", i, 0) FG_DSP_DW_TAPS_SX("lr", i, 1)
#define FG_DSP_DW_TAPS_HEXA_X4567(i, W) \
    FG_DSP_DW_TAPS_SX("r12", i, 2) FG_DSP_DW_TAPS_FIFTH_##W(FG_DSP_DW_TAPS_SX("lr", i, 3))
#define FG_DSP_DW_TAPS_HEXA_CONSTANTS_ANY \
    "ldr r10, [%[k], #4]\n\tldr r11, [%[k], #8]\n\tldr r12, [%[k], #12]\n\t"
#define FG_DSP_DW_TAPS_HEXA_CONSTANTS_3 FG_DSP_DW_TAPS_HEXA_CONSTANTS_ANY
#define FG_DSP_DW_TAPS_HEXA_CONSTANTS_5 FG_DSP_DW_TAPS_HEXA_CONSTANTS_ANY
#define FG_DSP_DW_TAPS_HEXA_CONSTANTS_6 FG_DSP_DW_TAPS_HEXA_CONSTANTS_ANY
#endif
#define FG_DSP_DW_TAPS_YMAC(op, acc, W) op " " acc ", " FG_DSP_DW_TAPS_Y_##W ", "
/* The instructions of out3 (FOURTH), out4 (FIFTH) and out5 (SIXTH) in a pass of W (3, 5 or 6) outputs: those of
 * the outputs the pass has. */
#define FG_DSP_DW_TAPS_FOURTH_3(text) ""
#define FG_DSP_DW_TAPS_FOURTH_5(text) text
#define FG_DSP_DW_TAPS_FOURTH_6(text) text
#define FG_DSP_DW_TAPS_FIFTH_3(text) ""
#define FG_DSP_DW_TAPS_FIFTH_5(text) text
#define FG_DSP_DW_TAPS_FIFTH_6(text) text
#define FG_DSP_DW_TAPS_SIXTH_3(text) ""
#define FG_DSP_DW_TAPS_SIXTH_5(text) ""
#define FG_DSP_DW_TAPS_SIXTH_6(text) text
/* out2 .. out5's MACs of row i once X23 (Y) has been read: X45 and X67 loaded back to back (the second pipelined
 * behind the first on the M4). */
#define FG_DSP_DW_TAPS_HEXA_REST(i, W)                                                  \
    FG_DSP_DW_TAPS_HEXA_X4567(i, W)                                                     \
    "smlabt r6, r12, r11, r6\n\t"                                                       \
    FG_DSP_DW_TAPS_FOURTH_##W("smlad r7, r12, r11, r7\n\t")                             \
    FG_DSP_DW_TAPS_FIFTH_##W("smlad r8, r12, r10, r8\n\t")                              \
    FG_DSP_DW_TAPS_SIXTH_##W("smlatb r9, r12, r10, r9\n\t")                             \
    FG_DSP_DW_TAPS_FIFTH_##W(FG_DSP_DW_TAPS_YMAC("smlabt", "r8", W) "r11, r8\n\t")     \
    FG_DSP_DW_TAPS_SIXTH_##W(FG_DSP_DW_TAPS_YMAC("smlad", "r9", W) "r11, r9\n\t")
/* The first row (X23 in lr): X45 loaded with the others into r9 (out5's accumulator, free until out5's first MAC), so
 * that every accumulator's first MAC adds the bias from r4 before out0's overwrites it (one bias load, one run of
 * loads), then X67 into r12. */
#define FG_DSP_DW_TAPS_HEXA_FIRST_ANY(W)                                                \
    "ldr r4, [%[k]]\n\t"                                                                \
    FG_DSP_DW_TAPS_HEXA_LOADS(0, W)                                                     \
    FG_DSP_DW_TAPS_SX("r9", 0, 2)                                                       \
    "smlatb r5, r12, r10, r4\n\t"                                                       \
    "smlad r6, lr, r10, r4\n\t"                                                         \
    FG_DSP_DW_TAPS_FOURTH_##W("smlatb r7, lr, r10, r4\n\t")                             \
    FG_DSP_DW_TAPS_FIFTH_##W("smlad r8, r9, r10, r4\n\t")                               \
    "smlabt r6, r9, r11, r6\n\t"                                                        \
    FG_DSP_DW_TAPS_FOURTH_##W("smlad r7, r9, r11, r7\n\t")                              \
    FG_DSP_DW_TAPS_SIXTH_##W("smlatb r9, r9, r10, r4\n\t")                              \
    "smlad r4, r12, r10, r4\n\t"                                                        \
    "smlabt r4, lr, r11, r4\n\t"                                                        \
    "smlad r5, lr, r11, r5\n\t"                                                         \
    FG_DSP_DW_TAPS_FIFTH_##W(FG_DSP_DW_TAPS_SX("r12", 0, 3))                            \
    FG_DSP_DW_TAPS_FIFTH_##W("smlabt r8, r12, r11, r8\n\t")                             \
    FG_DSP_DW_TAPS_SIXTH_##W("smlad r9, r12, r11, r9\n\t")
#if defined(FG_CORE_CORTEX_M7)
/* The M7's first row of a pass of five (X23 in r9): the bias in r4 and copied to out4's accumulator (its first MAC
 * after X45 is loaded, out0's on r4 before), x moved on to the next row by the first LDRD (the pass's other words
 * fg_dsp_dw_taps_xo back: FG_DSP_DW_TAPS_HEXA_ROW5_NEXT adds nothing); llvm-mca cortex-m7 60 cycles a pass where
 * X45 in r8 (the pass of six's order) takes 61. */
#define FG_DSP_DW_TAPS_HEXA_FIRST_5                                                     \
    ".if fg_dsp_dw_taps_xo\n\t.error \"the pass of five's x is not its first word\"\n\t.endif\n\t" \
    "ldr r4, [%[k]]\n\t"                                                                \
    "ldrd r10, r11, [%[k], #16]\n\t"                                                    \
    "ldrd r12, r9, [%[x]], #fg_dsp_dw_taps_pitch\n\t"                                   \
    ".set fg_dsp_dw_taps_xo, -fg_dsp_dw_taps_pitch\n\t"                                 \
    "mov r8, r4\n\t"                                                                    \
    "smlatb r5, r12, r10, r4\n\t"                                                       \
    "smlad r6, r9, r10, r4\n\t"                                                         \
    "smlatb r7, r9, r10, r4\n\t"                                                        \
    "smlad r4, r12, r10, r4\n\t"                                                        \
    "smlabt r4, r9, r11, r4\n\t"                                                        \
    "smlad r5, r9, r11, r5\n\t"                                                         \
    FG_DSP_DW_TAPS_HEXA_REST(0, 5)
#define FG_DSP_DW_TAPS_HEXA_FIRST_6 FG_DSP_DW_TAPS_HEXA_FIRST_ANY(6)
#else
#define FG_DSP_DW_TAPS_HEXA_FIRST_3 FG_DSP_DW_TAPS_HEXA_FIRST_ANY(3)
#define FG_DSP_DW_TAPS_HEXA_FIRST_5 FG_DSP_DW_TAPS_HEXA_FIRST_ANY(5)
#define FG_DSP_DW_TAPS_HEXA_FIRST_6 FG_DSP_DW_TAPS_HEXA_FIRST_ANY(6)
#endif
#define FG_DSP_DW_TAPS_HEXA_ROW(i, W)                                                   \
    FG_DSP_DW_TAPS_HEXA_LOADS(i, W)                                                     \
    "smlad r4, r12, r10, r4\n\t"                                                        \
    "smlatb r5, r12, r10, r5\n\t"                                                       \
    FG_DSP_DW_TAPS_YMAC("smlabt", "r4", W) "r11, r4\n\t"                                \
    FG_DSP_DW_TAPS_YMAC("smlad", "r5", W) "r11, r5\n\t"                                 \
    FG_DSP_DW_TAPS_YMAC("smlad", "r6", W) "r10, r6\n\t"                                 \
    FG_DSP_DW_TAPS_FOURTH_##W(FG_DSP_DW_TAPS_YMAC("smlatb", "r7", W) "r10, r7\n\t")     \
    FG_DSP_DW_TAPS_HEXA_REST(i, W)
/* The output stage of the pass's W accumulators from r4 on by multiplier r10, offset r11, shift r12
 * (FG_DSP_DW_TAPS_OUT's steps on other registers). */
#define FG_DSP_DW_TAPS_HEXA_EACH(OP, W)                                                 \
    OP("r4") OP("r5") OP("r6") FG_DSP_DW_TAPS_FOURTH_##W(OP("r7")) FG_DSP_DW_TAPS_FIFTH_##W(OP("r8")) \
    FG_DSP_DW_TAPS_SIXTH_##W(OP("r9"))
#define FG_DSP_DW_TAPS_HSMMULR(a) "smmulr " a ", " a ", r10\n\t"
#define FG_DSP_DW_TAPS_HOFFSET(a) "add " a ", " a ", r11\n\t"
#define FG_DSP_DW_TAPS_HSMMLAR(a) "smmlar " a ", " a ", r10, r11\n\t"
#define FG_DSP_DW_TAPS_HSHIFT(a) "asr " a ", " a ", r12\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The M7's order (FG_CORE_CORTEX_M7): the output stage's steps A .. E (NONE: no step) staggered, each accumulator's
 * step one accumulator after its step before, so that a high multiply issues beside a shift, an add or an SSAT
 * (llvm-mca cortex-m7, a kws_ref_model pass of five: 66 -> 63 cycles, 73 -> 70 with the rounding correction). */
#define FG_DSP_DW_TAPS_NONE(a) ""
#define FG_DSP_DW_TAPS_H0(OP, W) OP("r4")
#define FG_DSP_DW_TAPS_H1(OP, W) OP("r5")
#define FG_DSP_DW_TAPS_H2(OP, W) OP("r6")
#define FG_DSP_DW_TAPS_H3(OP, W) FG_DSP_DW_TAPS_FOURTH_##W(OP("r7"))
#define FG_DSP_DW_TAPS_H4(OP, W) FG_DSP_DW_TAPS_FIFTH_##W(OP("r8"))
#define FG_DSP_DW_TAPS_H5(OP, W) FG_DSP_DW_TAPS_SIXTH_##W(OP("r9"))
#define FG_DSP_DW_TAPS_HEXA_WAVE(W, A, B, C, D, E)                                      \
    FG_DSP_DW_TAPS_H0(A, W)                                                             \
    FG_DSP_DW_TAPS_H1(A, W) FG_DSP_DW_TAPS_H0(B, W)                                     \
    FG_DSP_DW_TAPS_H2(A, W) FG_DSP_DW_TAPS_H1(B, W) FG_DSP_DW_TAPS_H0(C, W)             \
    FG_DSP_DW_TAPS_H3(A, W) FG_DSP_DW_TAPS_H2(B, W) FG_DSP_DW_TAPS_H1(C, W) FG_DSP_DW_TAPS_H0(D, W) \
    FG_DSP_DW_TAPS_H4(A, W) FG_DSP_DW_TAPS_H3(B, W) FG_DSP_DW_TAPS_H2(C, W) FG_DSP_DW_TAPS_H1(D, W) \
    FG_DSP_DW_TAPS_H0(E, W)                                                             \
    FG_DSP_DW_TAPS_H5(A, W) FG_DSP_DW_TAPS_H4(B, W) FG_DSP_DW_TAPS_H3(C, W) FG_DSP_DW_TAPS_H2(D, W) \
    FG_DSP_DW_TAPS_H1(E, W)                                                             \
    FG_DSP_DW_TAPS_H5(B, W) FG_DSP_DW_TAPS_H4(C, W) FG_DSP_DW_TAPS_H3(D, W) FG_DSP_DW_TAPS_H2(E, W) \
    FG_DSP_DW_TAPS_H5(C, W) FG_DSP_DW_TAPS_H4(D, W) FG_DSP_DW_TAPS_H3(E, W)             \
    FG_DSP_DW_TAPS_H5(D, W) FG_DSP_DW_TAPS_H4(E, W)                                     \
    FG_DSP_DW_TAPS_H5(E, W)
#define FG_DSP_DW_TAPS_HEXA_OUT(W)                                                      \
    FG_DSP_DW_TAPS_HEXA_WAVE(W, FG_DSP_DW_TAPS_HSMMULR, FG_DSP_DW_TAPS_CORRECT, FG_DSP_DW_TAPS_HOFFSET, \
                             FG_DSP_DW_TAPS_HSHIFT, FG_DSP_DW_TAPS_SSAT)
#define FG_DSP_DW_TAPS_HEXA_OUT_RELU(W)                                                 \
    FG_DSP_DW_TAPS_HEXA_WAVE(W, FG_DSP_DW_TAPS_HSMMLAR, FG_DSP_DW_TAPS_HSHIFT, FG_DSP_DW_TAPS_SSAT, \
                             FG_DSP_DW_TAPS_NONE, FG_DSP_DW_TAPS_NONE)
#else
#define FG_DSP_DW_TAPS_HEXA_OUT(W)                                                      \
    FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_HSMMULR, W) FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_CORRECT, W) \
    FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_HOFFSET, W) FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_HSHIFT, W)   \
    FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_SSAT, W)
#define FG_DSP_DW_TAPS_HEXA_OUT_RELU(W)                                                 \
    FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_HSMMLAR, W) FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_HSHIFT, W)   \
    FG_DSP_DW_TAPS_HEXA_EACH(FG_DSP_DW_TAPS_SSAT, W)
#endif
/* out moved on past a pass of W outputs (r10: 3 step, r12: out + 3 step). */
#define FG_DSP_DW_TAPS_HEXA_NEXT_3 "add %[out], %[out], r10\n\t"
#define FG_DSP_DW_TAPS_HEXA_NEXT_5 "add %[out], r12, %[step], lsl #1\n\t"
#define FG_DSP_DW_TAPS_HEXA_NEXT_6 "add %[out], r12, r10\n\t"
/* The stores of a pass of W outputs (FG_DSP_DW_TAPS_HEXA_PASS); the M7's pass of five: out3 from r9 (out + step),
 * out4 at out + 4 step, lr left alone (the channel's end: FG_DSP_DW_TAPS_HEXA_ROW5_END). */
#define FG_DSP_DW_TAPS_HEXA_STORES_ANY(W)                                               \
    "add r10, %[step], %[step], lsl #1\n\t"                                             \
    FG_DSP_DW_TAPS_FOURTH_##W("add r12, %[out], r10\n\t")                               \
    "strb r4, [%[out]]\n\t"                                                             \
    "strb r5, [%[out], %[step]]\n\t"                                                    \
    "strb r6, [%[out], %[step], lsl #1]\n\t"                                            \
    FG_DSP_DW_TAPS_FOURTH_##W("strb r7, [r12]\n\t")                                     \
    FG_DSP_DW_TAPS_FIFTH_##W("strb r8, [r12, %[step]]\n\t")                             \
    FG_DSP_DW_TAPS_SIXTH_##W("strb r9, [r12, %[step], lsl #1]\n\t")                     \
    "ldr lr, [sp]\n\t"                                                                  \
    FG_DSP_DW_TAPS_HEXA_NEXT_##W
#if defined(FG_CORE_CORTEX_M7)
#define FG_DSP_DW_TAPS_HEXA_STORES_5                                                    \
    "add r9, %[out], %[step]\n\t"                                                       \
    "strb r4, [%[out]]\n\t"                                                             \
    "strb r5, [%[out], %[step]]\n\t"                                                    \
    "strb r6, [%[out], %[step], lsl #1]\n\t"                                            \
    "strb r7, [r9, %[step], lsl #1]\n\t"                                                \
    "strb r8, [%[out], %[step], lsl #2]\n\t"                                            \
    "add %[out], r9, %[step], lsl #2\n\t"
#define FG_DSP_DW_TAPS_HEXA_STORES_6 FG_DSP_DW_TAPS_HEXA_STORES_ANY(6)
/* The M7's rows of five two a loop (FG_DSP_DW_TAPS_HEXA_ROWS5): an odd count enters at the second (the frame's x
 * bytes, 2 slots a row, tell). */
#define FG_DSP_DW_TAPS_HEXA_ROWS5_END \
    "ldr lr, [sp]\n\tldr r4, [sp, #4]\n\ttst r4, #" FG_DSP_DW_TAPS_SMALL_PITCH "\n\tbne 5f\n\t"
#define FG_DSP_DW_TAPS_HEXA_ROWS5_NEXT(advance) ""
#else
#define FG_DSP_DW_TAPS_HEXA_STORES_3 FG_DSP_DW_TAPS_HEXA_STORES_ANY(3)
#define FG_DSP_DW_TAPS_HEXA_STORES_5 FG_DSP_DW_TAPS_HEXA_STORES_ANY(5)
#define FG_DSP_DW_TAPS_HEXA_STORES_6 FG_DSP_DW_TAPS_HEXA_STORES_ANY(6)
#define FG_DSP_DW_TAPS_HEXA_ROW3_END ""
#define FG_DSP_DW_TAPS_HEXA_ROW5_END ""
#define FG_DSP_DW_TAPS_HEXA_ROW3_NEXT FG_DSP_DW_TAPS_HEXA_X_NEXT
#define FG_DSP_DW_TAPS_HEXA_ROW5_NEXT FG_DSP_DW_TAPS_HEXA_X_NEXT
#endif
#define FG_DSP_DW_TAPS_HEXA_ROW6_END ""
#define FG_DSP_DW_TAPS_HEXA_ROW12_END ""
#define FG_DSP_DW_TAPS_HEXA_ROWS6_END ""
/* x moved on `advance` bytes after a ROW (ROW##_NEXT: a ROW that moves x itself adds nothing). */
#define FG_DSP_DW_TAPS_HEXA_X_NEXT(advance) "add %[x], %[x], #" advance "\n\t"
#define FG_DSP_DW_TAPS_HEXA_ROW6_NEXT FG_DSP_DW_TAPS_HEXA_X_NEXT
#define FG_DSP_DW_TAPS_HEXA_ROW12_NEXT FG_DSP_DW_TAPS_HEXA_X_NEXT
#define FG_DSP_DW_TAPS_HEXA_ROWS6_NEXT FG_DSP_DW_TAPS_HEXA_X_NEXT
/* A pass of W (3, 5 or 6) outputs at x + fg_dsp_dw_taps_xo (OUT: the output stage), stored at out + p * step (r10:
 * 3 step; out3 .. out5 from r12, out + 3 step), out moved on W outputs; lr: the channel's end from the frame. */
#define FG_DSP_DW_TAPS_HEXA_PASS(OUT, W)                                                \
    FG_DSP_DW_TAPS_HEXA_FIRST_##W FG_DSP_DW_TAPS_HEXA_ROW(1, W) FG_DSP_DW_TAPS_HEXA_ROW(2, W) \
    FG_DSP_DW_TAPS_HEXA_CONSTANTS_##W OUT(W) FG_DSP_DW_TAPS_HEXA_STORES_##W
/* A row of three, five or six outputs: one pass; of twelve: two, the second's input words 12 bytes on. */
#if !defined(FG_CORE_CORTEX_M7)
#define FG_DSP_DW_TAPS_HEXA_ROW3(OUT) ".set fg_dsp_dw_taps_xo, 0\n\t" FG_DSP_DW_TAPS_HEXA_PASS(OUT, 3)
#endif
#define FG_DSP_DW_TAPS_HEXA_ROW5(OUT) ".set fg_dsp_dw_taps_xo, 0\n\t" FG_DSP_DW_TAPS_HEXA_PASS(OUT, 5)
#if defined(FG_CORE_CORTEX_M7)
#define FG_DSP_DW_TAPS_HEXA_ROWS5(OUT) FG_DSP_DW_TAPS_HEXA_ROW5(OUT) "5:\n\t" FG_DSP_DW_TAPS_HEXA_ROW5(OUT)
#endif
#define FG_DSP_DW_TAPS_HEXA_ROW6(OUT) ".set fg_dsp_dw_taps_xo, 0\n\t" FG_DSP_DW_TAPS_HEXA_PASS(OUT, 6)
#define FG_DSP_DW_TAPS_HEXA_ROW12(OUT) \
    FG_DSP_DW_TAPS_HEXA_ROW6(OUT) ".set fg_dsp_dw_taps_xo, 12\n\t" FG_DSP_DW_TAPS_HEXA_PASS(OUT, 6)
/* Two rows of six, the second's input words a slot on. */
#define FG_DSP_DW_TAPS_HEXA_ROWS6(OUT) \
    FG_DSP_DW_TAPS_HEXA_ROW6(OUT) ".set fg_dsp_dw_taps_xo, " FG_DSP_DW_TAPS_SMALL_PITCH "\n\t" \
    FG_DSP_DW_TAPS_HEXA_PASS(OUT, 6)
/* The group's four channels in turn, each as ROW (FG_DSP_DW_TAPS_HEXA_ROW3, 5, 6 or 12, with OUT) from x to end, x
 * advancing ADVANCE bytes a ROW (a small image's slot a row, or 12 bytes a pass of six along a ring row), the window's
 * rows PITCH bytes apart, output p of a ROW at out + p * step; then x, end and out on to the next channel's row
 * (CHANNEL bytes on), first output and table entry. The frame: end, the bytes x and out move over a channel's ROWs
 * (out's less one), the channels left; the caller's local `uint32_t frame[4]`, checked at sp as
 * FG_DSP_DW_TAPS_QUADS_ASM's. ROW##_END: what a channel's rows need before them (the end in lr, where ROW keeps it). */
#define FG_DSP_DW_TAPS_HEXA_ASM(ROW, OUT, PITCH, ADVANCE, CHANNEL)                      \
    __asm__ volatile(                                                                   \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t" \
        ".set fg_dsp_dw_taps_pitch, " PITCH "\n"                                        \
        "2:\n\t" ROW##_END "\n"                                                          \
        "1:\n\t"                                                                        \
        ROW(OUT)                                                                        \
        ROW##_NEXT(ADVANCE)                                                             \
        "cmp %[x], lr\n\t"                                                              \
        "bne 1b\n\t"                                                                    \
        "ldm sp, {r4-r7}\n\t"                                                           \
        "sub %[x], %[x], r5\n\t"                                                        \
        "add %[x], %[x], #" CHANNEL "\n\t"                                              \
        "add r4, r4, #" CHANNEL "\n\t"                                                  \
        "sub %[out], %[out], r6\n\t"                                                    \
        "add %[k], %[k], #40\n\t"                                                       \
        "subs r7, r7, #1\n\t"                                                           \
        "str r4, [sp]\n\t"                                                              \
        "str r7, [sp, #12]\n\t"                                                         \
        "bne 2b\n\t"                                                                    \
        : [x] "+r"(rx), [out] "+r"(ro), [k] "+r"(rk), [frame] "+m"(frame)                \
        : [step] "r"(rs)                                                                \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")
#define FG_DSP_DW_TAPS_HEXA_RUN(ROW, relu, PITCH, ADVANCE, CHANNEL)                     \
    if (relu) {                                                                         \
        FG_DSP_DW_TAPS_HEXA_ASM(ROW, FG_DSP_DW_TAPS_HEXA_OUT_RELU, PITCH, ADVANCE, CHANNEL); \
    } else {                                                                            \
        FG_DSP_DW_TAPS_HEXA_ASM(ROW, FG_DSP_DW_TAPS_HEXA_OUT, PITCH, ADVANCE, CHANNEL); \
    }
#define FG_DSP_DW_TAPS_HEXA_ROWS(ROW, relu)                                             \
    FG_DSP_DW_TAPS_HEXA_RUN(ROW, relu, FG_DSP_DW_TAPS_SMALL_PITCH, FG_DSP_DW_TAPS_SMALL_PITCH, \
                            FG_DSP_DW_TAPS_SMALL_ROW_BYTES)
#if !defined(FG_CORE_CORTEX_M7)
/* `passes` (>= 1) passes of six outputs along a ring row of each of the group's channels (x, k, out and step as
 * fg_dsp_dw_taps_quads'): the small image's pass on the ring's rows, 3.7 loads an output where a pass of four takes
 * 4.75; an even count two passes a loop (FG_DSP_DW_TAPS_HEXA_ROW12). */
static __attribute__((noinline)) void fg_dsp_dw_taps_hexas(const int16_t *x, const fg_dsp_dw_taps_channel *k,
                                                           int8_t *out, int32_t step, int32_t passes, int relu) {
    register const int16_t *rx __asm__("r0") = x;
    register const fg_dsp_dw_taps_channel *rk __asm__("r1") = k;
    register int8_t *ro __asm__("r2") = out;
    register int32_t rs __asm__("r3") = step;
    uint32_t frame[4] = {(uint32_t)(x + 6 * passes), 12 * (uint32_t)passes, (uint32_t)(6 * passes * step) - 1,
                         4};  /* at sp */
    if (passes & 1) {
        FG_DSP_DW_TAPS_HEXA_RUN(FG_DSP_DW_TAPS_HEXA_ROW6, relu, FG_DSP_DW_TAPS_PITCH, "12", FG_DSP_DW_TAPS_ROW_BYTES)
    } else {
        FG_DSP_DW_TAPS_HEXA_RUN(FG_DSP_DW_TAPS_HEXA_ROW12, relu, FG_DSP_DW_TAPS_PITCH, "24", FG_DSP_DW_TAPS_ROW_BYTES)
    }
}
#endif

/* `rows` (>= 1) output rows of `width` (3, 5, 6 or 12) outputs of each of the group's four channels (x: channel 0's
 * first window's top left in the image's first slot, output p of channel j's row at out + p * step + j). */
static __attribute__((noinline)) void fg_dsp_dw_taps_hexa_group(const int16_t *x, const fg_dsp_dw_taps_channel *k,
                                                                int8_t *out, int32_t step, int32_t rows,
                                                                int32_t width, int relu) {
    register const int16_t *rx __asm__("r0") = x;
    register const fg_dsp_dw_taps_channel *rk __asm__("r1") = k;
    register int8_t *ro __asm__("r2") = out;
    register int32_t rs __asm__("r3") = step;
    uint32_t frame[4] = {(uint32_t)(x + rows * FG_DSP_DW_TAPS_SMALL_SLOT),
                         2 * FG_DSP_DW_TAPS_SMALL_SLOT * (uint32_t)rows, (uint32_t)(width * rows * step) - 1,
                         4};  /* at sp */
    if (width == 12) {
        FG_DSP_DW_TAPS_HEXA_ROWS(FG_DSP_DW_TAPS_HEXA_ROW12, relu)
    } else if (width == 6 && rows % 2 == 0) {  /* two rows a loop */
        FG_DSP_DW_TAPS_HEXA_RUN(FG_DSP_DW_TAPS_HEXA_ROWS6, relu, FG_DSP_DW_TAPS_SMALL_PITCH,
                                "(2 * " FG_DSP_DW_TAPS_SMALL_PITCH ")", FG_DSP_DW_TAPS_SMALL_ROW_BYTES)
    } else if (width == 6) {
        FG_DSP_DW_TAPS_HEXA_ROWS(FG_DSP_DW_TAPS_HEXA_ROW6, relu)
    } else if (width == 5) {
#if defined(FG_CORE_CORTEX_M7)
        FG_DSP_DW_TAPS_HEXA_ROWS(FG_DSP_DW_TAPS_HEXA_ROWS5, relu)
#else
        FG_DSP_DW_TAPS_HEXA_ROWS(FG_DSP_DW_TAPS_HEXA_ROW5, relu)
#endif
    } else {
#if !defined(FG_CORE_CORTEX_M7)  /* the M7's rows of three: the ring kernel's (fg_dsp_dw_taps_small) */
        FG_DSP_DW_TAPS_HEXA_ROWS(FG_DSP_DW_TAPS_HEXA_ROW3, relu)
#endif
    }
}

/* Whether the layer runs as a small image (FG_DSP_DW_TAPS_HEXA_ASM): the generator's taps_small (dsp_taps.py, which
 * sends the M7 no row of three: the ring kernel's there). */
static int fg_dsp_dw_taps_small(const fg_depthwise_conv2d_params *p) {
#if defined(FG_CORE_CORTEX_M7)
    const int three = 0;
#else
    const int three = p->out_w == 3;
#endif
    return (three || p->out_w == 5 || p->out_w == 6 || p->out_w == 12) && p->stride_h == 1 &&
           p->out_h + 2 <= FG_DSP_DW_TAPS_SMALL_SLOTS && p->pad_left == 1 && p->in_w >= 2 &&
           p->in_w + 2 <= FG_DSP_DW_TAPS_SMALL_COLUMNS;
}

/* The small image's run: the padding rows once, then per group its image rows and each channel's output rows. */
static __attribute__((noinline)) void fg_dsp_dw_taps_small_run(const fg_depthwise_conv2d_params *p,
                                                               const int8_t *input, int8_t *output) {
    const fg_dsp_dw_taps_channel *table = (const fg_dsp_dw_taps_channel *)p->packed;
    const int16_t zero_point = (int16_t)-p->requant.input_offset;
    const int relu = p->requant.output_offset == -128;
    const int32_t rows = p->out_h + 2;
    const uint32_t zero_points = (uint16_t)zero_point * 0x10001u;
    const int32_t data_rows = p->in_h < rows - p->pad_top ? p->in_h : rows - p->pad_top;  /* the image's rows read */
    uint32_t words[FG_DSP_DW_TAPS_SMALL_SLOTS * FG_DSP_DW_TAPS_SMALL_SLOT / 2];  /* the image, word aligned */
    int16_t *image = (int16_t *)words;
    /* the columns right of the words the fill writes (from column 0, the left padding's, to the image's last, an
     * even count) that the windows read (fg_dsp_dw_taps_padding's, here whole words) */
    const int32_t written = (p->in_w + 2) >> 1, right = p->in_w + 1, pairs_end = 2 * ((p->out_w + 1) / 2) + 2;
    const int32_t read = ((right > pairs_end ? right : pairs_end) + 1) >> 1;
    for (int32_t w = written; w < read; ++w) {  /* a row of five: one word */
        for (uint32_t *at = words + w; at < words + rows * FG_DSP_DW_TAPS_SMALL_SLOT / 2;
             at += FG_DSP_DW_TAPS_SMALL_COLUMNS / 2) {
            *at = zero_points;
        }
    }
    for (int32_t r = 0; r < rows; ++r) {  /* the padding rows, whole */
        if (r < p->pad_top || r >= p->pad_top + data_rows) {
            for (int32_t w = 0; w < FG_DSP_DW_TAPS_SMALL_SLOT / 2; ++w) {
                words[r * FG_DSP_DW_TAPS_SMALL_SLOT / 2 + w] = zero_points;
            }
        }
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *in = input + b * p->in_h * p->in_w * p->in_c;
        int8_t *out = output + b * p->out_h * p->out_w * p->in_c;
        for (int32_t g = 0; g < p->in_c / 4; ++g) {
            fg_dsp_dw_taps_channel k[4];
            fg_dsp_dw_taps_entries_ldm(k, table + 4 * g);
            fg_dsp_dw_taps_small_rows(in + 4 * g, p->in_c, data_rows, p->in_w, zero_points,
                                      image + p->pad_top * FG_DSP_DW_TAPS_SMALL_SLOT);
            fg_dsp_dw_taps_hexa_group(image, k, out + 4 * g, p->in_c, p->out_h, p->out_w, relu);
        }
    }
}

/* A layer's run: a small image whole, else through the ring. */
static void fg_dsp_dw_taps_layer_run(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    if (fg_dsp_dw_taps_small(p)) {
        fg_dsp_dw_taps_small_run(p, input, output);
    } else {
        fg_dsp_dw_taps_run(p, input, output);
    }
}

/* params->packed: per channel (groups of four: in_c a multiple of 4) its fg_dsp_dw_taps_channel. The generator
 * checks: dilation 1, stride_w 1, every channel narrow, the clamp all of int8, and the padded row (with what an even
 * count of outputs reads past it) within FG_DSP_DW_TAPS_COLUMNS. An output that overlaps the input other than a
 * whole number of pixels before it runs the portable kernel (pixel order). */
void fg_depthwise_conv2d_3x3_taps_dsp(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    if (fg_depthwise_channel_major(p, input, output)) {
        fg_dsp_dw_taps_layer_run(p, input, output);
    } else {
        fg_depthwise_conv2d_3x3_s8(p, input, output);
    }
}

#endif
