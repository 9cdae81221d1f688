#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include <string.h>

#include "fg/isa/dsp.h"
#include "fg/isa/dsp_ring.h"
#include "fg/isa/dsp_staged.h"

/* A 3x3 convolution of one or three input channels (an image's first layer; a one-channel depthwise convolution
 * is one): the three input rows of the current output row sign-extended once to int16 in a buffer on the stack (the
 * padding holding the input zero point), so that a window's row is 3 * in_c consecutive halfwords: in_c + (in_c - 1)
 * / 2 words of two inputs, each feeding one SMLAD per output channel, and one more input (the bottom half of the
 * next word) for SMLABB. Four output channels per pass, their weight words in the order the taps read them; on the
 * M4 and M33 two pixels a pass (fg_dsp_conv_ring_pairs: each weight word loaded once for both), the odd last pixel
 * of a row alone with the four words by one LDM that walks them; the inputs' words by LDRs that pipeline. */

#define FG_DSP_CONV_RING_ROW(ic) (2 * (ic) * FG_DSP_CONV_RING_COLUMNS)  /* bytes of a buffer row */
/* Rows of the buffer: an output row's three windows rows start at any of its rows (the next output row's one further
 * at stride 1, the rows moved up to the top only every other output row). */
#define FG_DSP_CONV_RING_ROWS 4
#if defined(FG_CORE_CORTEX_M7)
#define FG_DSP_CONV_RING_BUFFER_BYTES (FG_DSP_CONV_RING_ROWS * FG_DSP_CONV_RING_ROW(3))
#else
/* Bytes from the buffer's three rows to their copy shifted left by one pixel (read by the second pixel of a pair at
 * stride 1), past 8 bytes the copy's first row may take when the left padding is 0 (its image column 0, never read). */
#define FG_DSP_CONV_RING_SHIFTED (FG_DSP_CONV_RING_ROWS * FG_DSP_CONV_RING_ROW(3) + 8)
#define FG_DSP_CONV_RING_BUFFER_BYTES (FG_DSP_CONV_RING_SHIFTED + FG_DSP_CONV_RING_ROWS * FG_DSP_CONV_RING_ROW(3))
#endif
#define FG_DSP_CONV_RING_X(ic, i, k) \
    "[%[x], #(" #i " * 2 * " #ic " * " FG_DSP_RING_XSTR(FG_DSP_CONV_RING_COLUMNS) " + 4 * (" #k "))]"
/* The taps' order in a group's weight words (conv_ring_groups in firmware_gen/ops/variants/dsp_window.py): window rows
 * 0 and 1's pairs, their last taps as one pair (FG_DSP_CONV_RING_LAST2: the two input words' bottom halves put in
 * one word by PKHBT, one SMLAD where two SMLABBs were), row 2's pairs and its last tap. Tap index (an assembler
 * expression) of word k of window row i, and of the two rows' last taps: */
#define FG_DSP_CONV_RING_T(ic, i, k) "(" #i " * ((3 * " #ic " - 1) / 2) + " #i " / 2 + " #k ")"
#define FG_DSP_CONV_RING_LAST2(ic) "(2 * ((3 * " #ic " - 1) / 2))"
/* Bytes of a group's weight words: 3 (3 in_c - 1) / 2 pairs and two last taps, 16 bytes a tap. */
#define FG_DSP_CONV_RING_WEIGHT_BYTES(ic) (16 * (3 * ((3 * (ic) - 1) / 2) + 2))
/* The input word of rows 0 and 1's last taps in r8 (lr its scratch). */
#define FG_DSP_CONV_RING_LAST2_IN(ic)                                   \
    "ldr r8, " FG_DSP_CONV_RING_X(ic, 0, ((3 * ic - 1) / 2)) "\n\t"     \
    "ldr lr, " FG_DSP_CONV_RING_X(ic, 1, ((3 * ic - 1) / 2)) "\n\t"     \
    "pkhbt r8, r8, lr, lsl #16\n\t"

#if defined(FG_CORE_CORTEX_M7)
/* The Cortex-M7's order (FG_CORE_CORTEX_M7, as in fg/isa/dsp.h): an LDM issues alone there, a single LDR with the
 * SMLAD after it. So the weights are read by LDRs at offsets from w (w stays at the group's first weight word),
 * tap t's four words at [w + 16 t]: each of the next tap's words is loaded after this tap's SMLAD that reads the
 * register, issued with the next SMLAD (four cycles a tap in llvm-mca's cortex-m7 model), the first tap's before the
 * first; the inputs' words of a pair of taps (or of a row's last tap alone) by LDRs before their first tap, the
 * second issued with its first SMLAD. The last tap loads nothing. */
#define FG_DSP_CONV_RING_W(t, c) "[%[w], #16 * (" t ") + 4 * " #c "]"
#define FG_DSP_CONV_RING_NEXT(t)                     \
    "ldr r9, " FG_DSP_CONV_RING_W(t, 0) "\n\t"      \
    "ldr r10, " FG_DSP_CONV_RING_W(t, 1) "\n\t"     \
    "ldr r11, " FG_DSP_CONV_RING_W(t, 2) "\n\t"     \
    "ldr r12, " FG_DSP_CONV_RING_W(t, 3) "\n\t"
/* Tap `t` (a string) against the inputs' word `in`, loading tap t + 1's weights if NEXT (else nothing). */
#define FG_DSP_CONV_RING_LOAD(t, c, r) "ldr " r ", " FG_DSP_CONV_RING_W(t " + 1", c) "\n\t"
#define FG_DSP_CONV_RING_STOP(t, c, r) ""
#define FG_DSP_CONV_RING_TAP(t, in, op, NEXT)       \
    op " r4, " in ", r9, r4\n\t"                    \
    NEXT(t, 0, "r9")                                \
    op " r5, " in ", r10, r5\n\t"                   \
    NEXT(t, 1, "r10")                               \
    op " r6, " in ", r11, r6\n\t"                   \
    NEXT(t, 2, "r11")                               \
    op " r7, " in ", r12, r7\n\t"                   \
    NEXT(t, 3, "r12")
/* Word k of window row i (one input channel, k = 0: its pair). */
#define FG_DSP_CONV_RING_ONE(i, k, op, NEXT)                                             \
    "ldr r8, " FG_DSP_CONV_RING_X(1, i, k) "\n\t"                                      \
    FG_DSP_CONV_RING_TAP(FG_DSP_CONV_RING_T(1, i, k), "r8", op, NEXT)
/* Rows 0 and 1's last taps as one pair. */
#define FG_DSP_CONV_RING_LAST_TWO(ic) \
    FG_DSP_CONV_RING_LAST2_IN(ic) FG_DSP_CONV_RING_TAP(FG_DSP_CONV_RING_LAST2(ic), "r8", "smlad", FG_DSP_CONV_RING_LOAD)
/* One input channel: rows 0 and 1's pairs, their last taps, row 2's pair and last tap. */
#define FG_DSP_CONV_RING_TAPS1                                                           \
    FG_DSP_CONV_RING_ONE(0, 0, "smlad", FG_DSP_CONV_RING_LOAD)                           \
    FG_DSP_CONV_RING_ONE(1, 0, "smlad", FG_DSP_CONV_RING_LOAD)                           \
    FG_DSP_CONV_RING_LAST_TWO(1)                                                         \
    FG_DSP_CONV_RING_ONE(2, 0, "smlad", FG_DSP_CONV_RING_LOAD)                           \
    FG_DSP_CONV_RING_ONE(2, 1, "smlabb", FG_DSP_CONV_RING_STOP)
/* Words n and n + 1 of window row i of three input channels: two pairs. */
#define FG_DSP_CONV_RING_TWO(i, n)                                                       \
    "ldr r8, " FG_DSP_CONV_RING_X(3, i, n) "\n\t"                                      \
    "ldr lr, " FG_DSP_CONV_RING_X(3, i, n + 1) "\n\t"                                  \
    FG_DSP_CONV_RING_TAP(FG_DSP_CONV_RING_T(3, i, n), "r8", "smlad", FG_DSP_CONV_RING_LOAD) \
    FG_DSP_CONV_RING_TAP(FG_DSP_CONV_RING_T(3, i, n + 1), "lr", "smlad", FG_DSP_CONV_RING_LOAD)
#define FG_DSP_CONV_RING_TAPS3                                                           \
    FG_DSP_CONV_RING_TWO(0, 0) FG_DSP_CONV_RING_TWO(0, 2) FG_DSP_CONV_RING_TWO(1, 0) FG_DSP_CONV_RING_TWO(1, 2) \
    FG_DSP_CONV_RING_LAST_TWO(3)                                                         \
    FG_DSP_CONV_RING_TWO(2, 0) FG_DSP_CONV_RING_TWO(2, 2)                                \
    "ldr r8, " FG_DSP_CONV_RING_X(3, 2, 4) "\n\t"                                      \
    FG_DSP_CONV_RING_TAP(FG_DSP_CONV_RING_T(3, 2, 4), "r8", "smlabb", FG_DSP_CONV_RING_STOP)
#define FG_DSP_CONV_RING_TAPS(TAPS) FG_DSP_CONV_RING_NEXT("0") TAPS
/* The four outputs of fg/isa/dsp_ring.h's FG_DSP_RING_OUT and FG_DSP_RING_OUT_RELU, interleaved: the constants
 * of channel j by LDRs at r11 + 12 j (r11 does not walk them), two channels' chains side by side (llvm-mca
 * cortex-m7: 26 and 19 cycles, against 42 and 30 one channel after the other with an LDM each). */
#define FG_DSP_RING_OUT_M7                 \
    "ldr r8, [r11]\n\t"                    \
    "ldr r9, [r11, #4]\n\t"                \
    "ldr r10, [r11, #12]\n\t"              \
    "ldr r12, [r11, #16]\n\t"              \
    "smmulr r4, r4, r8\n\t"                \
    "ldr r8, [r11, #8]\n\t"                \
    "smmulr r5, r5, r10\n\t"               \
    "ldr r10, [r11, #20]\n\t"              \
    "add r9, r9, r4, asr #31\n\t"          \
    "add r12, r12, r5, asr #31\n\t"        \
    "add r4, r4, r9\n\t"                   \
    "add r5, r5, r12\n\t"                  \
    "ldr r9, [r11, #24]\n\t"               \
    "asr r4, r4, r8\n\t"                   \
    "ldr r12, [r11, #36]\n\t"              \
    "asr r5, r5, r10\n\t"                  \
    "smmulr r6, r6, r9\n\t"                \
    "ldr r8, [r11, #28]\n\t"               \
    "smmulr r7, r7, r12\n\t"               \
    "ldr r10, [r11, #40]\n\t"              \
    "ssat r4, #8, r4\n\t"                  \
    "add r8, r8, r6, asr #31\n\t"          \
    "ssat r5, #8, r5\n\t"                  \
    "add r10, r10, r7, asr #31\n\t"        \
    "strb r4, [%[out]]\n\t"                \
    "add r6, r6, r8\n\t"                   \
    "ldr r9, [r11, #32]\n\t"               \
    "add r7, r7, r10\n\t"                  \
    "ldr r12, [r11, #44]\n\t"              \
    "strb r5, [%[out], #1]\n\t"            \
    "asr r6, r6, r9\n\t"                   \
    "asr r7, r7, r12\n\t"                  \
    "ssat r6, #8, r6\n\t"                  \
    "ssat r7, #8, r7\n\t"                  \
    "strb r6, [%[out], #2]\n\t"            \
    "strb r7, [%[out], #3]\n\t"
#define FG_DSP_RING_OUT_RELU_M7            \
    "ldr r8, [r11]\n\t"                    \
    "ldr r9, [r11, #4]\n\t"                \
    "ldr r10, [r11, #12]\n\t"              \
    "ldr r12, [r11, #16]\n\t"              \
    "smmlar r4, r4, r8, r9\n\t"            \
    "ldr r8, [r11, #24]\n\t"               \
    "smmlar r5, r5, r10, r12\n\t"          \
    "ldr r9, [r11, #28]\n\t"               \
    "ldr r10, [r11, #36]\n\t"              \
    "smmlar r6, r6, r8, r9\n\t"            \
    "ldr r12, [r11, #40]\n\t"              \
    "ldr r8, [r11, #8]\n\t"                \
    "smmlar r7, r7, r10, r12\n\t"          \
    "ldr r9, [r11, #20]\n\t"               \
    "asr r4, r4, r8\n\t"                   \
    "ldr r10, [r11, #32]\n\t"              \
    "asr r5, r5, r9\n\t"                   \
    "ldr r12, [r11, #44]\n\t"              \
    "asr r6, r6, r10\n\t"                  \
    "ssat r4, #8, r4\n\t"                  \
    "asr r7, r7, r12\n\t"                  \
    "ssat r5, #8, r5\n\t"                  \
    "strb r4, [%[out]]\n\t"                \
    "ssat r6, #8, r6\n\t"                  \
    "strb r5, [%[out], #1]\n\t"            \
    "ssat r7, #8, r7\n\t"                  \
    "strb r6, [%[out], #2]\n\t"            \
    "strb r7, [%[out], #3]\n\t"
#define FG_DSP_CONV_RING_OUTS(OUT) OUT##_M7
/* The bytes r11 walks in the output stage: none. */
#define FG_DSP_CONV_RING_OUT_WALK 0
/* The bytes w walks in the taps: none. */
#define FG_DSP_CONV_RING_WALK(ic) 0
#else
/* The four channels' weight words of the next tap (pair), each against the inputs' word `in`. */
#define FG_DSP_CONV_RING_TAP(in, op)                \
    "ldm %[w]!, {r9, r10, r11, r12}\n\t"            \
    op " r4, " in ", r9, r4\n\t"                    \
    op " r5, " in ", r10, r5\n\t"                   \
    op " r6, " in ", r11, r6\n\t"                   \
    op " r7, " in ", r12, r7\n\t"
/* Words k and k + 1 of window row i: two pairs. */
#define FG_DSP_CONV_RING_TWO(ic, i, k)                                                   \
    "ldr r8, " FG_DSP_CONV_RING_X(ic, i, k) "\n\t"                                     \
    "ldr lr, " FG_DSP_CONV_RING_X(ic, i, k + 1) "\n\t"                                 \
    FG_DSP_CONV_RING_TAP("r8", "smlad") FG_DSP_CONV_RING_TAP("lr", "smlad")
/* Word k of window row i alone. */
#define FG_DSP_CONV_RING_ONE(ic, i, k, op) "ldr r8, " FG_DSP_CONV_RING_X(ic, i, k) "\n\t" FG_DSP_CONV_RING_TAP("r8", op)
/* The taps in the table's order (FG_DSP_CONV_RING_T). */
#define FG_DSP_CONV_RING_TAPS1                                                           \
    FG_DSP_CONV_RING_ONE(1, 0, 0, "smlad") FG_DSP_CONV_RING_ONE(1, 1, 0, "smlad")        \
    FG_DSP_CONV_RING_LAST2_IN(1) FG_DSP_CONV_RING_TAP("r8", "smlad")                     \
    FG_DSP_CONV_RING_ONE(1, 2, 0, "smlad") FG_DSP_CONV_RING_ONE(1, 2, 1, "smlabb")
#define FG_DSP_CONV_RING_TAPS3                                                           \
    FG_DSP_CONV_RING_TWO(3, 0, 0) FG_DSP_CONV_RING_TWO(3, 0, 2)                          \
    FG_DSP_CONV_RING_TWO(3, 1, 0) FG_DSP_CONV_RING_TWO(3, 1, 2)                          \
    FG_DSP_CONV_RING_LAST2_IN(3) FG_DSP_CONV_RING_TAP("r8", "smlad")                     \
    FG_DSP_CONV_RING_TWO(3, 2, 0) FG_DSP_CONV_RING_TWO(3, 2, 2)                          \
    FG_DSP_CONV_RING_ONE(3, 2, 4, "smlabb")
#define FG_DSP_CONV_RING_TAPS(TAPS) TAPS
/* The bytes w walks in the taps. */
#define FG_DSP_CONV_RING_WALK(ic) FG_DSP_CONV_RING_WEIGHT_BYTES(ic)
#define FG_DSP_CONV_RING_OUTS(OUT) OUT("r4", 0) OUT("r5", 1) OUT("r6", 2) OUT("r7", 3)
/* The bytes r11 walks in the output stage: three constants a channel. */
#define FG_DSP_CONV_RING_OUT_WALK 48
#endif


/* The output rows' pixels: the biases by one LDM, the taps (the weights walked by w from FG_DSP_RING_WEIGHTS), then
 * per output an LDM of its constants (r11 walking them) and OUT; w back at the group, x advanced `advance` bytes,
 * out the output's channels. */
#define FG_DSP_CONV_RING_ASM(TAPS, OUT, ic, advance)                                                      \
    __asm__ volatile(                                                                                    \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t"    \
        "1:\n\t"                                                                                         \
        "ldm %[w], {r4-r7}\n\t"                                                                          \
        "add %[w], %[w], #" FG_DSP_RING_XSTR(FG_DSP_RING_WEIGHTS) "\n\t"                                 \
        FG_DSP_CONV_RING_TAPS(TAPS)                                                                      \
        "sub r11, %[w], #(" FG_DSP_RING_XSTR(FG_DSP_CONV_RING_WALK(ic)) " + "                            \
        FG_DSP_RING_XSTR(FG_DSP_RING_WEIGHTS) " - 16)\n\t"                                               \
        FG_DSP_CONV_RING_OUTS(OUT)                                                                       \
        "sub %[w], r11, #(" FG_DSP_RING_XSTR(FG_DSP_RING_WEIGHTS) " - 48 + "                              \
        FG_DSP_RING_XSTR(FG_DSP_CONV_RING_OUT_WALK) ")\n\t"                                              \
        "add %[x], %[x], #" advance "\n\t"                                                               \
        "ldr r12, [sp]\n\t"                                                                              \
        "add %[out], %[out], r12\n\t"                                                                    \
        "subs %[n], %[n], #1\n\t"                                                                        \
        "bne 1b\n\t"                                                                                     \
        : [x] "+r"(rx), [out] "+r"(ro), [w] "+r"(rw), [n] "+r"(rn), [frame] "+m"(frame)                 \
        :                                                                                                \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")

/* The pass STRIDES(TAPS, OUT, ic) for the layer's input channels (1 or 3) and activation, with each's taps and
 * output stage. */
#define FG_DSP_CONV_RING_DISPATCH(STRIDES, TAPS1, TAPS3, OUT, OUT_RELU)  \
    if (ic == 1 && relu) {                                            \
        STRIDES(TAPS1, OUT_RELU, 1)                                   \
    } else if (ic == 1) {                                             \
        STRIDES(TAPS1, OUT, 1)                                        \
    } else if (relu) {                                                \
        STRIDES(TAPS3, OUT_RELU, 3)                                   \
    } else {                                                          \
        STRIDES(TAPS3, OUT, 3)                                        \
    }
#define FG_DSP_CONV_RING_STRIDES(TAPS, OUT, ic)                                             \
    if (stride == 1) {                                                                     \
        FG_DSP_CONV_RING_ASM(TAPS, OUT, ic, FG_DSP_RING_XSTR(2 * ic));                      \
    } else {                                                                               \
        FG_DSP_CONV_RING_ASM(TAPS, OUT, ic, FG_DSP_RING_XSTR(4 * ic));                      \
    }

/* Pixels of one output row of one group (the M7's whole row, the M4's and M33's odd last pixel): per pixel and tap
 * (3 (3 in_c - 1) / 2 + 2 of them) an LDM + 4 SMLAD (SMLABB at the last), the input words by LDR (rows 0 and 1's
 * last taps' put together by PKHBT), then the output stage of fg/isa/dsp_ring.h. x: the first window's top left in
 * the buffer; stride: stride_w, 1 or 2; ic: in_c, 1 or 3; count: the row's pixels (>= 1); step: the output's
 * channels. */
static __attribute__((noinline)) void fg_dsp_conv_ring_row(const int16_t *x, const uint32_t *w, int8_t *out,
                                                           int32_t count, int32_t step, int relu, int stride, int ic) {
    register const int16_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    register int32_t rn __asm__("r2") = count;
    register int8_t *ro __asm__("r3") = out;
    uint32_t frame[2] = {(uint32_t)step, 0};  /* step, at sp (the second word puts it there: 8-byte alignment) */
    FG_DSP_CONV_RING_DISPATCH(FG_DSP_CONV_RING_STRIDES, FG_DSP_CONV_RING_TAPS1, FG_DSP_CONV_RING_TAPS3,
                              FG_DSP_RING_OUT, FG_DSP_RING_OUT_RELU)
}
#undef FG_DSP_CONV_RING_STRIDES
#undef FG_DSP_CONV_RING_ASM
#undef FG_DSP_CONV_RING_TAPS
#undef FG_DSP_CONV_RING_TAPS3
#undef FG_DSP_CONV_RING_TAPS1
#undef FG_DSP_CONV_RING_LAST_TWO
#undef FG_DSP_CONV_RING_ONE
#undef FG_DSP_CONV_RING_TWO
#undef FG_DSP_CONV_RING_TAP
#undef FG_DSP_CONV_RING_OUTS
#undef FG_DSP_CONV_RING_OUT_WALK
#undef FG_DSP_RING_OUT_M7
#undef FG_DSP_RING_OUT_RELU_M7

/* Two pixels a pass (the M4's and M33's order; the M7's at stride 2, below): each tap's four weight words, read by two LDR pairs at offsets from
 * w (which stays at the group), feed eight SMLADs instead of four, so the weights cost half the loads a pixel. r2-r5
 * pixel A's channels, r6-r9 pixel B's, r10/r11 two weight words, r12 and lr the two pixels' input words: A's at x,
 * B's at x + `b` (stride 2: the next window; stride 1: the same offset in the buffer's copy shifted by one pixel,
 * FG_DSP_CONV_RING_SHIFTED, as a pixel's 2 in_c bytes leave every other window unaligned). */
#define FG_DSP_CONV_RING_PAIR_W(t, c) "[%[w], #(64 + 16 * " t " + 4 * " #c ")]"
/* Word k of window row i for B (x + b). */
#define FG_DSP_CONV_RING_PAIR_XB(ic, i, k, b) \
    "[%[x], #(" b " + " #i " * 2 * " #ic " * " FG_DSP_RING_XSTR(FG_DSP_CONV_RING_COLUMNS) " + 4 * (" #k "))]"
/* B's sum before a tap: its own, or at the first tap A's (the biases, which only A's registers were loaded with). */
#define FG_DSP_CONV_RING_OWN(a, b) b
#define FG_DSP_CONV_RING_FROM_A(a, b) a
#if defined(FG_CORE_CORTEX_M7)
/* The M7's order (FG_CORE_CORTEX_M7, stride 2 only: no shifted copy; same MACs in the same order): a single LDR
 * issues beside a MAC in llvm-mca's cortex-m7 model, so each load sits alone between two MACs, as soon as its
 * register is free: a tap's third and fourth weight words after the MACs that read the first and second, and the next
 * tap's first weight word and both input words (N: W0, B's, A's, W1) in its last MACs' gaps (8 MACs in about 8
 * cycles a tap, against about 12 with each tap's loads before it). */
#define FG_DSP_CONV_RING_PAIR_TAP(t, op, SUM, W0, XB, XA, W1)                                    \
    op " r6, lr, r10, " SUM("r2", "r6") "\n\t"                                                \
    op " r2, r12, r10, r2\n\t"                                                                \
    "ldr r10, " FG_DSP_CONV_RING_PAIR_W(t, 2) "\n\t"                                        \
    op " r7, lr, r11, " SUM("r3", "r7") "\n\t"                                                \
    op " r3, r12, r11, r3\n\t"                                                                \
    "ldr r11, " FG_DSP_CONV_RING_PAIR_W(t, 3) "\n\t"                                        \
    op " r8, lr, r10, " SUM("r4", "r8") "\n\t"                                                \
    op " r4, r12, r10, r4\n\t" W0                                                             \
    op " r9, lr, r11, " SUM("r5", "r9") "\n\t" XB                                             \
    op " r5, r12, r11, r5\n\t" XA W1
#define FG_DSP_CONV_RING_PAIR_TAP_(...) FG_DSP_CONV_RING_PAIR_TAP(__VA_ARGS__)
/* The loads of word k of window row i next (tap t = FG_DSP_CONV_RING_T(ic, i, k)): W0, B's, A's, W1. */
#define FG_DSP_CONV_RING_PAIR_NEXT(ic, i, k, b)                                                   \
    "ldr r10, " FG_DSP_CONV_RING_PAIR_W(FG_DSP_CONV_RING_T(ic, i, k), 0) "\n\t",                \
    "ldr lr, " FG_DSP_CONV_RING_PAIR_XB(ic, i, k, b) "\n\t", "ldr r12, " FG_DSP_CONV_RING_X(ic, i, k) "\n\t", \
    "ldr r11, " FG_DSP_CONV_RING_PAIR_W(FG_DSP_CONV_RING_T(ic, i, k), 1) "\n\t"
#define FG_DSP_CONV_RING_PAIR_START(ic, b) \
    FG_DSP_CONV_RING_PAIR_START_(FG_DSP_CONV_RING_PAIR_NEXT(ic, 0, 0, b))
#define FG_DSP_CONV_RING_PAIR_START_(...) FG_DSP_CONV_RING_PAIR_LOADS(__VA_ARGS__)
#define FG_DSP_CONV_RING_PAIR_LOADS(W0, XB, XA, W1) XA XB W0 W1
/* Rows 0 and 1's last taps next: their row 0 input words (A's in r12, B's in lr); the tap itself loads row 1's (r10,
 * r11), puts each pixel's two in one word (PKHBT), then its first two weight words. */
#define FG_DSP_CONV_RING_PAIR_NEXT_LAST2(ic, b)                                                   \
    "", "ldr lr, " FG_DSP_CONV_RING_PAIR_XB(ic, 0, ((3 * ic - 1) / 2), b) "\n\t",                \
    "ldr r12, " FG_DSP_CONV_RING_X(ic, 0, ((3 * ic - 1) / 2)) "\n\t", ""
#define FG_DSP_CONV_RING_PAIR_LAST_TWO(ic, b, ...)                                                \
    "ldr r10, " FG_DSP_CONV_RING_X(ic, 1, ((3 * ic - 1) / 2)) "\n\t"                            \
    "ldr r11, " FG_DSP_CONV_RING_PAIR_XB(ic, 1, ((3 * ic - 1) / 2), b) "\n\t"                   \
    "pkhbt r12, r12, r10, lsl #16\n\t"                                                          \
    "pkhbt lr, lr, r11, lsl #16\n\t"                                                            \
    "ldr r10, " FG_DSP_CONV_RING_PAIR_W(FG_DSP_CONV_RING_LAST2(ic), 0) "\n\t"                  \
    "ldr r11, " FG_DSP_CONV_RING_PAIR_W(FG_DSP_CONV_RING_LAST2(ic), 1) "\n\t"                  \
    FG_DSP_CONV_RING_PAIR_TAP_(FG_DSP_CONV_RING_LAST2(ic), "smlad", FG_DSP_CONV_RING_OWN, __VA_ARGS__)
/* Word k of window row i, then word (i2, k2)'s loads. */
#define FG_DSP_CONV_RING_PAIR_WORD(ic, i, k, op, SUM, b, i2, k2) \
    FG_DSP_CONV_RING_PAIR_TAP_(FG_DSP_CONV_RING_T(ic, i, k), op, SUM, FG_DSP_CONV_RING_PAIR_NEXT(ic, i2, k2, b))
#define FG_DSP_CONV_RING_PAIR_TAPS1(b)                                                              \
    FG_DSP_CONV_RING_PAIR_START(1, b)                                                               \
    FG_DSP_CONV_RING_PAIR_WORD(1, 0, 0, "smlad", FG_DSP_CONV_RING_FROM_A, b, 1, 0)                  \
    FG_DSP_CONV_RING_PAIR_TAP_(FG_DSP_CONV_RING_T(1, 1, 0), "smlad", FG_DSP_CONV_RING_OWN,          \
                               FG_DSP_CONV_RING_PAIR_NEXT_LAST2(1, b))                              \
    FG_DSP_CONV_RING_PAIR_LAST_TWO(1, b, FG_DSP_CONV_RING_PAIR_NEXT(1, 2, 0, b))                    \
    FG_DSP_CONV_RING_PAIR_WORD(1, 2, 0, "smlad", FG_DSP_CONV_RING_OWN, b, 2, 1)                     \
    FG_DSP_CONV_RING_PAIR_TAP_(FG_DSP_CONV_RING_T(1, 2, 1), "smlabb", FG_DSP_CONV_RING_OWN,          \
                               FG_DSP_CONV_RING_PAIR_OUT_PRELOAD)
#define FG_DSP_CONV_RING_PAIR_TAPS3(b)                                                              \
    FG_DSP_CONV_RING_PAIR_START(3, b)                                                               \
    FG_DSP_CONV_RING_PAIR_WORD(3, 0, 0, "smlad", FG_DSP_CONV_RING_FROM_A, b, 0, 1)                  \
    FG_DSP_CONV_RING_PAIR_WORD(3, 0, 1, "smlad", FG_DSP_CONV_RING_OWN, b, 0, 2)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 0, 2, "smlad", FG_DSP_CONV_RING_OWN, b, 0, 3)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 0, 3, "smlad", FG_DSP_CONV_RING_OWN, b, 1, 0)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 1, 0, "smlad", FG_DSP_CONV_RING_OWN, b, 1, 1)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 1, 1, "smlad", FG_DSP_CONV_RING_OWN, b, 1, 2)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 1, 2, "smlad", FG_DSP_CONV_RING_OWN, b, 1, 3)                     \
    FG_DSP_CONV_RING_PAIR_TAP_(FG_DSP_CONV_RING_T(3, 1, 3), "smlad", FG_DSP_CONV_RING_OWN,          \
                               FG_DSP_CONV_RING_PAIR_NEXT_LAST2(3, b))                              \
    FG_DSP_CONV_RING_PAIR_LAST_TWO(3, b, FG_DSP_CONV_RING_PAIR_NEXT(3, 2, 0, b))                    \
    FG_DSP_CONV_RING_PAIR_WORD(3, 2, 0, "smlad", FG_DSP_CONV_RING_OWN, b, 2, 1)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 2, 1, "smlad", FG_DSP_CONV_RING_OWN, b, 2, 2)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 2, 2, "smlad", FG_DSP_CONV_RING_OWN, b, 2, 3)                     \
    FG_DSP_CONV_RING_PAIR_WORD(3, 2, 3, "smlad", FG_DSP_CONV_RING_OWN, b, 2, 4)                     \
    FG_DSP_CONV_RING_PAIR_TAP_(FG_DSP_CONV_RING_T(3, 2, 4), "smlabb", FG_DSP_CONV_RING_OWN,          \
                               FG_DSP_CONV_RING_PAIR_OUT_PRELOAD)
#else
/* Tap t (a string) against A's input word in register xa and B's in xb. */
#define FG_DSP_CONV_RING_PAIR_MACS_(t, op, SUM, xa, xb)                                       \
    "ldr r10, " FG_DSP_CONV_RING_PAIR_W(t, 0) "\n\t"                                        \
    "ldr r11, " FG_DSP_CONV_RING_PAIR_W(t, 1) "\n\t"                                        \
    op " r6, " xb ", r10, " SUM("r2", "r6") "\n\t"                                            \
    op " r2, " xa ", r10, r2\n\t"                                                             \
    op " r7, " xb ", r11, " SUM("r3", "r7") "\n\t"                                            \
    op " r3, " xa ", r11, r3\n\t"                                                             \
    "ldr r10, " FG_DSP_CONV_RING_PAIR_W(t, 2) "\n\t"                                        \
    "ldr r11, " FG_DSP_CONV_RING_PAIR_W(t, 3) "\n\t"                                        \
    op " r8, " xb ", r10, " SUM("r4", "r8") "\n\t"                                            \
    op " r4, " xa ", r10, r4\n\t"                                                             \
    op " r9, " xb ", r11, " SUM("r5", "r9") "\n\t"                                            \
    op " r5, " xa ", r11, r5\n\t"
/* The same with A's word in r12 and B's in lr. */
#define FG_DSP_CONV_RING_PAIR_MACS(t, op, SUM) FG_DSP_CONV_RING_PAIR_MACS_(t, op, SUM, "r12", "lr")
/* Word k of window row i, A's and B's (x + b): x has already been advanced past the pass by the first tap's load
 * (FG_DSP_CONV_RING_PAIR_FIRST), hence the `- fg_dsp_conv_ring_advance` (an assembler symbol: the pass's advance). */
#define FG_DSP_CONV_RING_PAIR_XA(ic, i, k) \
    "[%[x], #(" #i " * 2 * " #ic " * " FG_DSP_RING_XSTR(FG_DSP_CONV_RING_COLUMNS) " + 4 * (" #k \
    ") - fg_dsp_conv_ring_advance)]"
#define FG_DSP_CONV_RING_PAIR_XB_(ic, i, k, b) \
    "[%[x], #(" b " + " #i " * 2 * " #ic " * " FG_DSP_RING_XSTR(FG_DSP_CONV_RING_COLUMNS) " + 4 * (" #k \
    ") - fg_dsp_conv_ring_advance)]"
#define FG_DSP_CONV_RING_PAIR_TAP(ic, i, k, op, b, SUM)                                       \
    "ldr r12, " FG_DSP_CONV_RING_PAIR_XA(ic, i, k) "\n\t"                                    \
    "ldr lr, " FG_DSP_CONV_RING_PAIR_XB_(ic, i, k, b) "\n\t"                                 \
    FG_DSP_CONV_RING_PAIR_MACS(FG_DSP_CONV_RING_T(ic, i, k), op, SUM)
/* The pass's first tap (word 0 of window row 0, B's sums from A's biases): A's word loaded with x advanced past the
 * pass (post-indexed: no ADD for it at the end of the pass). */
#define FG_DSP_CONV_RING_PAIR_FIRST(ic, b)                                                    \
    "ldr r12, [%[x]], #fg_dsp_conv_ring_advance\n\t"                                          \
    "ldr lr, " FG_DSP_CONV_RING_PAIR_XB_(ic, 0, 0, b) "\n\t"                                 \
    FG_DSP_CONV_RING_PAIR_MACS(FG_DSP_CONV_RING_T(ic, 0, 0), "smlad", FG_DSP_CONV_RING_FROM_A)
/* Rows 0 and 1's last taps as one pair, for both pixels (r10, r11 the second rows' words before the weights). */
#define FG_DSP_CONV_RING_PAIR_LAST_TWO(ic, b)                                                 \
    "ldr r12, " FG_DSP_CONV_RING_PAIR_XA(ic, 0, ((3 * ic - 1) / 2)) "\n\t"                   \
    "ldr r10, " FG_DSP_CONV_RING_PAIR_XA(ic, 1, ((3 * ic - 1) / 2)) "\n\t"                   \
    "ldr lr, " FG_DSP_CONV_RING_PAIR_XB_(ic, 0, ((3 * ic - 1) / 2), b) "\n\t"                \
    "ldr r11, " FG_DSP_CONV_RING_PAIR_XB_(ic, 1, ((3 * ic - 1) / 2), b) "\n\t"               \
    "pkhbt r12, r12, r10, lsl #16\n\t"                                                        \
    "pkhbt lr, lr, r11, lsl #16\n\t"                                                          \
    FG_DSP_CONV_RING_PAIR_MACS(FG_DSP_CONV_RING_LAST2(ic), "smlad", FG_DSP_CONV_RING_OWN)
/* The taps in the table's order (FG_DSP_CONV_RING_T). */
#define FG_DSP_CONV_RING_PAIR_TAPS1(b)                                                        \
    FG_DSP_CONV_RING_PAIR_FIRST(1, b)                                                         \
    FG_DSP_CONV_RING_PAIR_TAP(1, 1, 0, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_LAST_TWO(1, b)                                                      \
    FG_DSP_CONV_RING_PAIR_TAP(1, 2, 0, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_TAP(1, 2, 1, "smlabb", b, FG_DSP_CONV_RING_OWN)
/* Words 1 to 3 of window row i of three input channels. */
#define FG_DSP_CONV_RING_PAIR_PAIRS3(i, b)                                                    \
    FG_DSP_CONV_RING_PAIR_TAP(3, i, 1, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_TAP(3, i, 2, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_TAP(3, i, 3, "smlad", b, FG_DSP_CONV_RING_OWN)
#define FG_DSP_CONV_RING_PAIR_TAPS3(b)                                                        \
    FG_DSP_CONV_RING_PAIR_FIRST(3, b) FG_DSP_CONV_RING_PAIR_PAIRS3(0, b)                      \
    FG_DSP_CONV_RING_PAIR_TAP(3, 1, 0, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_PAIRS3(1, b)                                                        \
    FG_DSP_CONV_RING_PAIR_LAST_TWO(3, b)                                                      \
    FG_DSP_CONV_RING_PAIR_TAP(3, 2, 0, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_PAIRS3(2, b)                                                        \
    FG_DSP_CONV_RING_PAIR_TAP(3, 2, 4, "smlabb", b, FG_DSP_CONV_RING_OWN)
/* At stride 2 (FG_DSP_CONV_RING_PAIR_STRIDES: b = 4 in_c) B's window starts in_c words (two pixels) right of A's:
 * B's word k of a window row is A's word k + in_c, read once for both where one tap's B word is the next one's A
 * word (kept in lr, B's then loaded into r12; the weights are read at the tap's offset, in any order). Word k of
 * window row i (A's) into register r: */
#define FG_DSP_CONV_RING_PAIR_S2_LOAD(r, ic, i, k) "ldr " r ", " FG_DSP_CONV_RING_PAIR_XA(ic, i, k) "\n\t"
/* Rows 0 and 1's last taps as one pair, row 1's A word in lr (the B word of the tap before). */
#define FG_DSP_CONV_RING_PAIR_S2_LAST_TWO(ic)                                                 \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r12", ic, 0, ((3 * ic - 1) / 2))                           \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r10", ic, 0, ((3 * ic - 1) / 2 + ic))                      \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r11", ic, 1, ((3 * ic - 1) / 2 + ic))                      \
    "pkhbt r12, r12, lr, lsl #16\n\t"                                                         \
    "pkhbt lr, r10, r11, lsl #16\n\t"                                                         \
    FG_DSP_CONV_RING_PAIR_MACS(FG_DSP_CONV_RING_LAST2(ic), "smlad", FG_DSP_CONV_RING_OWN)
/* Row 2's last tap, its A word in lr (the B word of the tap before). */
#define FG_DSP_CONV_RING_PAIR_S2_LAST(ic)                                                     \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r12", ic, 2, ((3 * ic - 1) / 2 + ic))                      \
    FG_DSP_CONV_RING_PAIR_MACS_(FG_DSP_CONV_RING_T(ic, 2, ((3 * ic - 1) / 2)), "smlabb", FG_DSP_CONV_RING_OWN, \
                                "lr", "r12")
/* One input channel: a row's pair's B word is its last tap's A word (one load fewer at two taps). */
#define FG_DSP_CONV_RING_PAIR_TAPS1_STRIDE2(b)                                                \
    FG_DSP_CONV_RING_PAIR_FIRST(1, b)                                                         \
    FG_DSP_CONV_RING_PAIR_TAP(1, 1, 0, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_S2_LAST_TWO(1)                                                      \
    FG_DSP_CONV_RING_PAIR_TAP(1, 2, 0, "smlad", b, FG_DSP_CONV_RING_OWN)                      \
    FG_DSP_CONV_RING_PAIR_S2_LAST(1)
/* Three input channels: each row's taps in the order 0, 3, 2, 1: tap 3's A word is tap 0's B word, and tap 1's B
 * word is the row's last tap's A word (one load fewer at five taps). */
/* Row i's taps 3, 2, 1 (its tap 0 done, A's word 3 in lr). */
#define FG_DSP_CONV_RING_PAIR_S2_ROW(i)                                                       \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r12", 3, i, 6)                                             \
    FG_DSP_CONV_RING_PAIR_MACS_(FG_DSP_CONV_RING_T(3, i, 3), "smlad", FG_DSP_CONV_RING_OWN, "lr", "r12") \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r12", 3, i, 2) FG_DSP_CONV_RING_PAIR_S2_LOAD("lr", 3, i, 5) \
    FG_DSP_CONV_RING_PAIR_MACS(FG_DSP_CONV_RING_T(3, i, 2), "smlad", FG_DSP_CONV_RING_OWN)    \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r12", 3, i, 1) FG_DSP_CONV_RING_PAIR_S2_LOAD("lr", 3, i, 4) \
    FG_DSP_CONV_RING_PAIR_MACS(FG_DSP_CONV_RING_T(3, i, 1), "smlad", FG_DSP_CONV_RING_OWN)
/* Row i's tap 0, then the rest. */
#define FG_DSP_CONV_RING_PAIR_S2_NEXT_ROW(i)                                                  \
    FG_DSP_CONV_RING_PAIR_S2_LOAD("r12", 3, i, 0) FG_DSP_CONV_RING_PAIR_S2_LOAD("lr", 3, i, 3) \
    FG_DSP_CONV_RING_PAIR_MACS(FG_DSP_CONV_RING_T(3, i, 0), "smlad", FG_DSP_CONV_RING_OWN)    \
    FG_DSP_CONV_RING_PAIR_S2_ROW(i)
#define FG_DSP_CONV_RING_PAIR_TAPS3_STRIDE2(b)                                                \
    FG_DSP_CONV_RING_PAIR_FIRST(3, b) FG_DSP_CONV_RING_PAIR_S2_ROW(0)                         \
    FG_DSP_CONV_RING_PAIR_S2_NEXT_ROW(1)                                                      \
    FG_DSP_CONV_RING_PAIR_S2_LAST_TWO(3)                                                      \
    FG_DSP_CONV_RING_PAIR_S2_NEXT_ROW(2)                                                      \
    FG_DSP_CONV_RING_PAIR_S2_LAST(3)
#endif
/* Channel j's multiplier, offset and shift (r10, r11, r12) at w, for both pixels' sums a (A) and b (B), in place:
 * FG_DSP_RING_REQUANT's and FG_DSP_RING_REQUANT_RELU's arithmetic, the two chains side by side (lr the scratch). */
#define FG_DSP_CONV_RING_PAIR_CONSTANTS(j)          \
    "ldr r10, [%[w], #(16 + 12 * " #j ")]\n\t"     \
    "ldr r11, [%[w], #(20 + 12 * " #j ")]\n\t"     \
    "ldr r12, [%[w], #(24 + 12 * " #j ")]\n\t"
#define FG_DSP_CONV_RING_PAIR_OUT(a, b, j)          \
    FG_DSP_CONV_RING_PAIR_CONSTANTS(j)              \
    "smmulr " a ", " a ", r10\n\t"                  \
    "smmulr " b ", " b ", r10\n\t"                  \
    "add lr, r11, " a ", asr #31\n\t"               \
    "add r11, r11, " b ", asr #31\n\t"              \
    "add " a ", " a ", lr\n\t"                      \
    "add " b ", " b ", r11\n\t"                     \
    "asr " a ", " a ", r12\n\t"                     \
    "asr " b ", " b ", r12\n\t"                     \
    "ssat " a ", #8, " a "\n\t"                     \
    "ssat " b ", #8, " b "\n\t"
#define FG_DSP_CONV_RING_PAIR_OUT_RELU(a, b, j)     \
    FG_DSP_CONV_RING_PAIR_CONSTANTS(j)              \
    "smmlar " a ", " a ", r10, r11\n\t"             \
    "smmlar " b ", " b ", r10, r11\n\t"             \
    "asr " a ", " a ", r12\n\t"                     \
    "asr " b ", " b ", r12\n\t"                     \
    "ssat " a ", #8, " a "\n\t"                     \
    "ssat " b ", #8, " b "\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The M7's output stage of the pair (FG_CORE_CORTEX_M7): channel j's multiplier and offset in r10, r11 (loaded once
 * channel j - 1's first step is done) and its shift in lr or r12 (two channels ahead), the taps' last gaps loading
 * channel 0's and channel 1's; each channel's shifts beside the loads of the next one's constants, its SSATs beside the
 * next one's high multiplies, the stores beside the last SSATs (out in lr, out + step in r12, pairs left in r11). */
#define FG_DSP_CONV_RING_PAIR_K(r, j, c) "ldr " r ", [%[w], #(16 + 12 * " #j " + 4 * " #c ")]\n\t"
#define FG_DSP_CONV_RING_PAIR_OUT_PRELOAD \
    FG_DSP_CONV_RING_PAIR_K("r10", 0, 0), FG_DSP_CONV_RING_PAIR_K("lr", 0, 2), FG_DSP_CONV_RING_PAIR_K("r12", 1, 2), \
    FG_DSP_CONV_RING_PAIR_K("r11", 0, 1)
/* The steps on a and b that read the multiplier and offset. */
#define FG_DSP_CONV_RING_PAIR_OUT_FIRST(a, b)                                                        \
    "smmulr " a ", " a ", r10\n\t" "smmulr " b ", " b ", r10\n\t"                                    \
    "add " a ", " a ", " a ", asr #31\n\t" "add " b ", " b ", " b ", asr #31\n\t"                      \
    "add " a ", " a ", r11\n\t" "add " b ", " b ", r11\n\t"
#define FG_DSP_CONV_RING_PAIR_OUT_RELU_FIRST(a, b) \
    "smmlar " a ", " a ", r10, r11\n\t" "smmlar " b ", " b ", r10, r11\n\t"
#define FG_DSP_CONV_RING_PAIR_SHIFT(a, b, s, L1, L2) \
    "asr " a ", " a ", " s "\n\t" L1 "asr " b ", " b ", " s "\n\t" L2
#define FG_DSP_CONV_RING_PAIR_SSAT(a, b) "ssat " a ", #8, " a "\n\t" "ssat " b ", #8, " b "\n\t"
#define FG_DSP_CONV_RING_PAIR_OUTS_M7(FIRST)                                                          \
    FIRST("r2", "r6")                                                                                 \
    FG_DSP_CONV_RING_PAIR_SHIFT("r2", "r6", "lr", FG_DSP_CONV_RING_PAIR_K("r10", 1, 0),                 \
                                FG_DSP_CONV_RING_PAIR_K("r11", 1, 1))                                 \
    FG_DSP_CONV_RING_PAIR_K("lr", 2, 2)                                                               \
    FIRST("r3", "r7") FG_DSP_CONV_RING_PAIR_SSAT("r2", "r6")                                          \
    FG_DSP_CONV_RING_PAIR_SHIFT("r3", "r7", "r12", FG_DSP_CONV_RING_PAIR_K("r10", 2, 0),                \
                                FG_DSP_CONV_RING_PAIR_K("r11", 2, 1))                                 \
    FG_DSP_CONV_RING_PAIR_K("r12", 3, 2)                                                              \
    FIRST("r4", "r8") FG_DSP_CONV_RING_PAIR_SSAT("r3", "r7")                                          \
    FG_DSP_CONV_RING_PAIR_SHIFT("r4", "r8", "lr", FG_DSP_CONV_RING_PAIR_K("r10", 3, 0),                 \
                                FG_DSP_CONV_RING_PAIR_K("r11", 3, 1))                                 \
    "ldr lr, [sp]\n\t"                                                                                \
    FIRST("r5", "r9") FG_DSP_CONV_RING_PAIR_SSAT("r4", "r8")                                          \
    FG_DSP_CONV_RING_PAIR_SHIFT("r5", "r9", "r12", "ldr r10, [sp, #8]\n\t", "ldr r11, [sp, #4]\n\t")    \
    "add r12, lr, r10\n\t"                                                                            \
    "ssat r5, #8, r5\n\t" "strb r2, [lr]\n\t" "ssat r9, #8, r9\n\t" "strb r3, [lr, #1]\n\t"          \
    "add r10, r12, r10\n\t" "strb r4, [lr, #2]\n\t" "subs r11, r11, #1\n\t" "strb r5, [lr, #3]\n\t"   \
    "strb r6, [r12]\n\t" "strb r7, [r12, #1]\n\t" "strb r8, [r12, #2]\n\t" "strb r9, [r12, #3]\n\t"  \
    "str r10, [sp]\n\t" "str r11, [sp, #4]\n\t"
#define FG_DSP_CONV_RING_PAIR_OUTS(OUT) FG_DSP_CONV_RING_PAIR_OUTS_M7(OUT##_FIRST)
#define FG_DSP_CONV_RING_PAIR_BIASES "ldm %[w], {r2-r5}\n\t"
/* x advanced (the loop's test: the pairs left counted down in the output stage). */
#define FG_DSP_CONV_RING_PAIR_SET(advance) ""
#define FG_DSP_CONV_RING_PAIR_ADVANCE(advance) "add %[x], %[x], #" advance "\n\t"
#else
#define FG_DSP_CONV_RING_PAIR_OUTS(OUT)                                                                  \
        OUT("r2", "r6", 0) OUT("r3", "r7", 1) OUT("r4", "r8", 2) OUT("r5", "r9", 3)                      \
        "ldr r10, [sp]\n\t"                                                                              \
        "ldr r11, [sp, #8]\n\t"                                                                          \
        "ldr lr, [sp, #4]\n\t"                                                                           \
        "add r12, r10, r11\n\t"                                                                          \
        "add r11, r12, r11\n\t"                                                                          \
        "strb r2, [r10]\n\t"                                                                             \
        "strb r3, [r10, #1]\n\t"                                                                         \
        "strb r4, [r10, #2]\n\t"                                                                         \
        "strb r5, [r10, #3]\n\t"                                                                         \
        "strb r6, [r12]\n\t"                                                                             \
        "strb r7, [r12, #1]\n\t"                                                                         \
        "strb r8, [r12, #2]\n\t"                                                                         \
        "strb r9, [r12, #3]\n\t"                                                                         \
        "str r11, [sp]\n\t"
/* The biases into A's sums by LDRs, one run of loads with the first tap's (an LDM would not pipeline with them). */
#define FG_DSP_CONV_RING_PAIR_BIASES \
    "ldr r2, [%[w]]\n\t" "ldr r3, [%[w], #4]\n\t" "ldr r4, [%[w], #8]\n\t" "ldr r5, [%[w], #12]\n\t"
/* The pass's advance for its taps (FG_DSP_CONV_RING_PAIR_FIRST), the loop's test: x (advanced by the first tap)
 * against the end of the row's pairs in the frame (lr). */
#define FG_DSP_CONV_RING_PAIR_SET(advance) ".set fg_dsp_conv_ring_advance, " advance "\n\t"
#define FG_DSP_CONV_RING_PAIR_ADVANCE(advance) "cmp %[x], lr\n\t"
#endif
/* The pairs: the frame at sp (out, the loop's count (the M7: pairs left; else x's end), step: a local array, so that
 * the stack bound counts it, which the assembler checks is at sp), the biases into A's sums (B's from them at the
 * first tap), the taps, the output stage, the eight bytes at out (A) and out + step (B); x advanced `advance` bytes
 * (two pixels). */
#define FG_DSP_CONV_RING_PAIR_ASM(TAPS, OUT, b, advance)                                                  \
    __asm__ volatile(                                                                                    \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t"    \
        FG_DSP_CONV_RING_PAIR_SET(advance)                                                               \
        "ldr r12, %[step]\n\t"                                                                           \
        "stm sp, {r2, r3, r12}\n"                                                                        \
        "1:\n\t"                                                                                         \
        FG_DSP_CONV_RING_PAIR_BIASES                                                                     \
        TAPS(b)                                                                                          \
        FG_DSP_CONV_RING_PAIR_OUTS(OUT)                                                                  \
        FG_DSP_CONV_RING_PAIR_ADVANCE(advance)                                                           \
        "bne 1b\n\t"                                                                                     \
        : [x] "+r"(rx), "+r"(ro), "+r"(rn), [frame] "=m"(frame)                                              \
        : [w] "r"(rw), [step] "m"(step)                                                                  \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")

#if defined(FG_CORE_CORTEX_M7)
#define FG_DSP_CONV_RING_PAIR_STRIDES(TAPS, OUT, ic)                                                     \
    (void)stride;                                                                                       \
    FG_DSP_CONV_RING_PAIR_ASM(TAPS, OUT, FG_DSP_RING_XSTR(4 * ic), FG_DSP_RING_XSTR(8 * ic));
#else
#define FG_DSP_CONV_RING_PAIR_STRIDES(TAPS, OUT, ic)                                                     \
    if (stride == 1) {                                                                                  \
        FG_DSP_CONV_RING_PAIR_ASM(TAPS, OUT, FG_DSP_RING_XSTR(FG_DSP_CONV_RING_SHIFTED),                  \
                                  FG_DSP_RING_XSTR(4 * ic));                                            \
    } else {                                                                                            \
        FG_DSP_CONV_RING_PAIR_ASM(TAPS##_STRIDE2, OUT, FG_DSP_RING_XSTR(4 * ic), FG_DSP_RING_XSTR(8 * ic)); \
    }
#endif

/* Pixel pairs of one output row of one group (fg_dsp_conv_ring_row's arguments, pairs >= 1 of them): per pair and
 * tap 4 LDR + 8 SMLAD (SMLABB), per pair one output stage of eight outputs. */
static __attribute__((noinline)) void fg_dsp_conv_ring_pairs(const int16_t *x, const uint32_t *w, int8_t *out,
                                                             int32_t pairs, int32_t step, int relu, int stride,
                                                             int ic) {
    register const int16_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    register int8_t *ro __asm__("r2") = out;
#if defined(FG_CORE_CORTEX_M7)
    register int32_t rn __asm__("r3") = pairs;
#else
    register int32_t rn __asm__("r3") = (int32_t)(uintptr_t)(x + pairs * 2 * stride * ic);  /* x past the pairs */
#endif
    uint32_t frame[4];  /* out, the loop's count, step; a fourth word puts it at sp (gcc's 8-byte alignment) */
    FG_DSP_CONV_RING_DISPATCH(FG_DSP_CONV_RING_PAIR_STRIDES, FG_DSP_CONV_RING_PAIR_TAPS1,
                              FG_DSP_CONV_RING_PAIR_TAPS3, FG_DSP_CONV_RING_PAIR_OUT, FG_DSP_CONV_RING_PAIR_OUT_RELU)
}
#undef FG_DSP_CONV_RING_PAIR_STRIDES
#undef FG_DSP_CONV_RING_PAIR_ASM
#undef FG_DSP_CONV_RING_PAIR_ADVANCE
#undef FG_DSP_CONV_RING_PAIR_SET
#undef FG_DSP_CONV_RING_PAIR_FIRST
#undef FG_DSP_CONV_RING_PAIR_XB_
#undef FG_DSP_CONV_RING_PAIR_XA
#undef FG_DSP_CONV_RING_PAIR_BIASES
#undef FG_DSP_CONV_RING_PAIR_OUT_RELU
#undef FG_DSP_CONV_RING_PAIR_OUT
#undef FG_DSP_CONV_RING_PAIR_CONSTANTS
#undef FG_DSP_CONV_RING_PAIR_TAPS3
#undef FG_DSP_CONV_RING_PAIR_TAPS3_STRIDE2
#undef FG_DSP_CONV_RING_PAIR_TAPS1_STRIDE2
#undef FG_DSP_CONV_RING_PAIR_S2_NEXT_ROW
#undef FG_DSP_CONV_RING_PAIR_S2_ROW
#undef FG_DSP_CONV_RING_PAIR_S2_LAST
#undef FG_DSP_CONV_RING_PAIR_S2_LAST_TWO
#undef FG_DSP_CONV_RING_PAIR_S2_LOAD
#undef FG_DSP_CONV_RING_PAIR_MACS_
#undef FG_DSP_CONV_RING_PAIR_PAIRS3
#undef FG_DSP_CONV_RING_PAIR_TAPS1
#undef FG_DSP_CONV_RING_PAIR_LAST_TWO
#undef FG_DSP_CONV_RING_PAIR_TAP
#undef FG_DSP_CONV_RING_PAIR_MACS
#undef FG_DSP_CONV_RING_PAIR_XB
#undef FG_DSP_CONV_RING_FROM_A
#undef FG_DSP_CONV_RING_OWN
#undef FG_DSP_CONV_RING_PAIR_W
#undef FG_DSP_CONV_RING_PAIR_WORD
#undef FG_DSP_CONV_RING_PAIR_NEXT_LAST2
#undef FG_DSP_CONV_RING_PAIR_LOADS
#undef FG_DSP_CONV_RING_PAIR_START_
#undef FG_DSP_CONV_RING_PAIR_START
#undef FG_DSP_CONV_RING_PAIR_NEXT
#undef FG_DSP_CONV_RING_PAIR_TAP_
#undef FG_DSP_CONV_RING_PAIR_OUTS
#undef FG_DSP_CONV_RING_PAIR_OUTS_M7
#undef FG_DSP_CONV_RING_PAIR_SSAT
#undef FG_DSP_CONV_RING_PAIR_SHIFT
#undef FG_DSP_CONV_RING_PAIR_OUT_RELU_FIRST
#undef FG_DSP_CONV_RING_PAIR_OUT_FIRST
#undef FG_DSP_CONV_RING_PAIR_OUT_PRELOAD
#undef FG_DSP_CONV_RING_PAIR_K
#undef FG_DSP_CONV_RING_DISPATCH
#undef FG_DSP_CONV_RING_LAST2_IN
#undef FG_DSP_CONV_RING_LAST2
#undef FG_DSP_CONV_RING_T
#undef FG_DSP_CONV_RING_X

/* Four inputs at src into four halves at dst: SXTB16 twice, the halves put back in order by PKHBT, PKHTB. */
static inline __attribute__((always_inline)) void fg_dsp_conv_ring_widen(const int8_t *src, int16_t *dst) {
    uint32_t v, low, high;
    memcpy(&v, src, sizeof v);
    const uint32_t even = __sxtb16(v), odd = fg_dsp_odd_s8x2(v);
    __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(low) : "r"(even), "r"(odd));    /* inputs 0, 1 */
    __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(high) : "r"(odd), "r"(even));  /* inputs 2, 3 */
    memcpy(dst, &low, sizeof low);
    memcpy(dst + 2, &high, sizeof high);
}

#if !defined(FG_CORE_CORTEX_M7)
/* One word's four inputs (register v) as fg_dsp_conv_ring_widen's two words: inputs 0, 1 into v, 2, 3 into e (o the
 * scratch). */
#define FG_DSP_CONV_RING_WIDEN_WORD(v, e)          \
    "sxtb16 %[o], %[" v "], ror #8\n\t"           \
    "sxtb16 %[" e "], %[" v "]\n\t"               \
    "pkhbt %[" v "], %[" e "], %[o], lsl #16\n\t" \
    "pkhtb %[" e "], %[o], %[" e "], asr #16\n\t"
/* The next sixteen inputs into v0-v3 (src advanced), their 32 bytes of halves from v0-v3, e0-e3 to dst (advanced). */
#define FG_DSP_CONV_RING_WIDEN_LOAD                                                     \
    "ldr %[v0], [%[src]], #16\n\t" "ldr %[v1], [%[src], #-12]\n\t"                      \
    "ldr %[v2], [%[src], #-8]\n\t" "ldr %[v3], [%[src], #-4]\n\t"
#define FG_DSP_CONV_RING_WIDEN_STORE                                                    \
    "str %[v0], [%[dst]], #32\n\t" "str %[e0], [%[dst], #-28]\n\t"                      \
    "str %[v1], [%[dst], #-24]\n\t" "str %[e1], [%[dst], #-20]\n\t"                     \
    "str %[v2], [%[dst], #-16]\n\t" "str %[e2], [%[dst], #-12]\n\t"                     \
    "str %[v3], [%[dst], #-8]\n\t" "str %[e3], [%[dst], #-4]\n\t"
#define FG_DSP_CONV_RING_WIDEN_BLOCK                                                    \
    FG_DSP_CONV_RING_WIDEN_WORD("v0", "e0") FG_DSP_CONV_RING_WIDEN_WORD("v1", "e1")      \
    FG_DSP_CONV_RING_WIDEN_WORD("v2", "e2") FG_DSP_CONV_RING_WIDEN_WORD("v3", "e3")
/* The inputs from src to end (a multiple of 16 bytes, > 0) into halves at dst, sixteen a step: each step's eight
 * stores and the next step's four loads one run of single loads and stores, pipelined after its first; two steps a
 * pass of the loop (entered at its second for an odd count of steps after the first), the last step's stores after
 * it. On the M4 timing 29 cycles a step and 4 a pass, against 34 a step for the loads, widening and stores of one
 * step a pass. Single LDRs and STRs: src and dst may be unaligned (the left padding puts dst a halfword past a
 * word). */
static inline __attribute__((always_inline)) void fg_dsp_conv_ring_widen_16(const int8_t *src, const int8_t *end,
                                                                           int16_t *dst) {
    uint32_t v0, v1, v2, v3, e0, e1, e2, e3, o;
    __asm__ volatile(FG_DSP_CONV_RING_WIDEN_LOAD
                     "cmp %[src], %[end]\n\t"
                     "beq 3f\n\t"
                     "sub %[o], %[end], %[src]\n\t"
                     "tst %[o], #16\n\t"
                     "bne 2f\n"
                     "1:\n\t"
                     FG_DSP_CONV_RING_WIDEN_BLOCK FG_DSP_CONV_RING_WIDEN_STORE FG_DSP_CONV_RING_WIDEN_LOAD
                     "2:\n\t"
                     FG_DSP_CONV_RING_WIDEN_BLOCK FG_DSP_CONV_RING_WIDEN_STORE FG_DSP_CONV_RING_WIDEN_LOAD
                     "cmp %[src], %[end]\n\t"
                     "bne 1b\n"
                     "3:\n\t"
                     FG_DSP_CONV_RING_WIDEN_BLOCK FG_DSP_CONV_RING_WIDEN_STORE
                     : [src] "+r"(src), [dst] "+r"(dst), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2),
                       [v3] "=&r"(v3), [e0] "=&r"(e0), [e1] "=&r"(e1), [e2] "=&r"(e2), [e3] "=&r"(e3), [o] "=&r"(o)
                     : [end] "r"(end)
                     : "cc", "memory");
}
#undef FG_DSP_CONV_RING_WIDEN_BLOCK
#undef FG_DSP_CONV_RING_WIDEN_STORE
#undef FG_DSP_CONV_RING_WIDEN_LOAD
#undef FG_DSP_CONV_RING_WIDEN_WORD
#endif

/* Input row y (any row: a row in the padding gets the zero point) into the buffer row at dst's image columns: on the
 * M4 and M33 sixteen inputs a pass (fg_dsp_conv_ring_widen_16), then eight; on the M7 eight a pass tested at the
 * bottom (one taken branch per two words: gcc -Os's for loop took two a word; estimated cycles a word on mps2_an500:
 * 13 against 22 unpacked); then four, then one at a time. Not inlined: inlined into
 * fg_dsp_conv_ring_run, its loop's values went through the stack. */
static __attribute__((noinline)) void fg_dsp_conv_ring_extend(const fg_conv2d_params *p, const int8_t *image,
                                                                int32_t y, int16_t zero_point, int16_t *dst) {
    const int32_t n = p->in_w * p->in_c;
    dst += p->pad_left * p->in_c;
    if (y < 0 || y >= p->in_h) {
        for (int32_t k = 0; k < n; ++k) {
            dst[k] = zero_point;
        }
        return;
    }
    const int8_t *src = image + y * n;
#if defined(FG_CORE_CORTEX_M7)
    if (n >= 8) {
        const int8_t *const end = src + (n & ~7);
        /* The M7's order (FG_CORE_CORTEX_M7): fg_dsp_conv_ring_widen twice with each SXTB16 as soon as its word is
         * loaded and each store beside the PKH after its own (llvm-mca cortex-m7 16 -> 9 cycles a pass). */
        uint32_t a, b, c, d, e;
        __asm__ volatile("1:\n\t"
                         "ldr %[a], [%[src]]\n\t"
                         "sxtb16 %[c], %[a]\n\t"
                         "ldr %[b], [%[src], #4]\n\t"
                         "sxtb16 %[d], %[b]\n\t"
                         "add %[src], %[src], #8\n\t"
                         "sxtb16 %[a], %[a], ror #8\n\t"
                         "sxtb16 %[b], %[b], ror #8\n\t"
                         "cmp %[src], %[end]\n\t"
                         "pkhbt %[e], %[c], %[a], lsl #16\n\t"
                         "str %[e], [%[dst]]\n\t"
                         "pkhtb %[a], %[a], %[c], asr #16\n\t"
                         "str %[a], [%[dst], #4]\n\t"
                         "pkhbt %[e], %[d], %[b], lsl #16\n\t"
                         "str %[e], [%[dst], #8]\n\t"
                         "pkhtb %[b], %[b], %[d], asr #16\n\t"
                         "str %[b], [%[dst], #12]\n\t"
                         "add %[dst], %[dst], #16\n\t"
                         "bne 1b\n\t"
                         : [src] "+r"(src), [dst] "+r"(dst), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d),
                           [e] "=&r"(e)
                         : [end] "r"(end)
                         : "cc", "memory");
    }
#else
    if (n >= 16) {
        fg_dsp_conv_ring_widen_16(src, src + (n & ~15), dst);
        src += n & ~15;
        dst += n & ~15;
    }
    if (n & 8) {
        fg_dsp_conv_ring_widen(src, dst);
        fg_dsp_conv_ring_widen(src + 4, dst + 4);
        src += 8;
        dst += 8;
    }
#endif
    if (n & 4) {
        fg_dsp_conv_ring_widen(src, dst);
        src += 4;
        dst += 4;
    }
    for (int32_t j = 0; j < (n & 3); ++j) {
        dst[j] = src[j];
    }
}

/* The zero point into the columns of the buffer's `count` rows that the windows read and no input row is extended
 * into (the padding's), and into the two halves the last window's single-tap word reads past its row. */
static void fg_dsp_conv_ring_padding(const fg_conv2d_params *p, int16_t zero_point, int16_t *rows, int32_t count) {
    const int32_t ic = p->in_c, row_halves = ic * FG_DSP_CONV_RING_COLUMNS, left = p->pad_left * ic;
    const int32_t right = (p->pad_left + p->in_w) * ic, last = ((p->out_w - 1) * p->stride_w + 3) * ic;
    const int32_t end = right > last ? right : last;
    for (int32_t i = 0; i < count; ++i, rows += row_halves) {
        for (int32_t k = 0; k < left; ++k) {
            rows[k] = zero_point;
        }
        for (int32_t k = right; k < end + 2; ++k) {
            rows[k] = zero_point;
        }
    }
}

#if !defined(FG_CORE_CORTEX_M7)
/* `words` words from to + distance (distance > 0: a row further down) to `to`, in ascending order (a row's copy may
 * reach a word into the next: the shifted copy of a row 98 pixels wide), eight a pass by fg_dsp_stage_words' LDM +
 * STM, then one at a time: ~22 cycles per 32 bytes on the M4 timing, against ~34 for newlib's memmove. to and the
 * rows' pitch are word-aligned. */
static void fg_dsp_conv_ring_move_up(uint32_t *to, int32_t distance, int32_t words) {
    const int32_t eights = words & ~7;
    if (eights) {
        fg_dsp_stage_words(to + distance, eights, to);
    }
    for (int32_t k = eights; k < words; ++k) {
        to[k] = to[k + distance];
    }
}
#endif

/* The three window rows at `window` for the output row whose windows start at input row top: the `kept` rows still
 * there from the last output row, moved up from window row `from` on unless it is 0, each by a memmove of the whole
 * words holding its image columns (the halves around them padding, alike in every row; in the shifted copy of a row
 * 98 pixels wide, one half of each neighbouring row, which no window reads), then the others extended. */
static void fg_dsp_conv_ring_rows(const fg_conv2d_params *p, const int8_t *image, int32_t top, int32_t kept,
                                  int32_t from, int16_t zero_point, int16_t *window) {
    const int32_t row_halves = p->in_c * FG_DSP_CONV_RING_COLUMNS, left = p->pad_left * p->in_c;
    const uintptr_t first = (uintptr_t)(window + left) & ~(uintptr_t)3;
    const size_t bytes = (((uintptr_t)(window + left + p->in_w * p->in_c) + 3) & ~(uintptr_t)3) - first;
    for (int32_t i = 0; i < kept && from > 0; ++i) {
#if defined(FG_CORE_CORTEX_M7)
        memmove((int16_t *)first + i * row_halves, (const int16_t *)first + (i + from) * row_halves, bytes);
#else
        fg_dsp_conv_ring_move_up((uint32_t *)first + i * row_halves / 2, row_halves / 2 * from, bytes / 4);
#endif
    }
    for (int32_t i = kept; i < 3; ++i) {
        fg_dsp_conv_ring_extend(p, image, top + i, zero_point, window + i * row_halves);
    }
}

/* The work of fg_conv2d_3x3_ring_dsp, the buffer and the groups' constants on its own stack frame. */
static __attribute__((noinline)) void fg_dsp_conv_ring_run(const fg_conv2d_params *p, const int8_t *input,
                                                           int8_t *output) {
    const int32_t ic = p->in_c, groups = p->out_c / 4, group_words = 16 + FG_DSP_CONV_RING_WEIGHT_BYTES(ic) / 4;
    const int32_t row_halves = ic * FG_DSP_CONV_RING_COLUMNS;
    uint32_t w[FG_DSP_CONV_RING_MAX_OUT / 4 * (16 + FG_DSP_CONV_RING_WEIGHT_BYTES(3) / 4)];  /* in RAM: every pixel reads them */
    memcpy(w, p->packed, (size_t)(groups * group_words) * sizeof w[0]);
    const int16_t zero_point = (int16_t)-p->requant.input_offset;
    uint32_t words[FG_DSP_CONV_RING_BUFFER_BYTES / 4 + 1];  /* the window's rows and what the last reads past */
    int16_t *rows = (int16_t *)words;
#if defined(FG_CORE_CORTEX_M7)
    const int32_t ring_rows = FG_DSP_CONV_RING_ROWS;
#else
    /* the copy shifted by one pixel: a pixel's halves ic halves further left (column 0 in front of the copy); without
     * it (stride_w 2) the ring takes the whole buffer, its rows moved up that much less often */
    int16_t *const shifted = rows + FG_DSP_CONV_RING_SHIFTED / 2 - ic;
    const int32_t ring_rows =
        p->stride_w == 1 ? FG_DSP_CONV_RING_ROWS : FG_DSP_CONV_RING_BUFFER_BYTES / FG_DSP_CONV_RING_ROW(ic);
    if (p->stride_w == 1) {
        fg_dsp_conv_ring_padding(p, zero_point, shifted, FG_DSP_CONV_RING_ROWS);
    }
#endif
    fg_dsp_conv_ring_padding(p, zero_point, rows, ring_rows);  /* the padding's columns keep it */
    const int relu = p->requant.output_offset == -128;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * ic;
        int8_t *out = output + b * p->out_h * p->out_w * p->out_c;
        int32_t base = 0;  /* the buffer row of the output row's first window row */
        for (int32_t oy = 0; oy < p->out_h; ++oy, out += p->out_w * p->out_c) {
            const int32_t top = oy * p->stride_h - p->pad_top;
            const int32_t kept = oy == 0 || p->stride_h >= 3 ? 0 : 3 - p->stride_h;  /* rows still in the buffer */
            int32_t from = 0;  /* where they are moved up from, if they are */
            if (kept == 0) {
                base = 0;
            } else if (base + p->stride_h + 3 <= ring_rows) {
                base += p->stride_h;
            } else {
                from = base + p->stride_h;
                base = 0;
            }
            int16_t *const window = rows + base * row_halves;
            fg_dsp_conv_ring_rows(p, image, top, kept, from, zero_point, window);
#if defined(FG_CORE_CORTEX_M7)
            if (p->stride_w == 1) {
                for (int32_t g = 0; g < groups; ++g) {
                    fg_dsp_conv_ring_row(window, w + g * group_words, out + 4 * g, p->out_w, p->out_c, relu, 1, ic);
                }
                continue;
            }
#else
            if (p->stride_w == 1) {
                fg_dsp_conv_ring_rows(p, image, top, kept, from, zero_point, shifted + base * row_halves);
            }
#endif
            const int32_t pairs = p->out_w / 2, last = p->out_w - 1;
            for (int32_t g = 0; g < groups; ++g) {
                if (pairs > 0) {
                    fg_dsp_conv_ring_pairs(window, w + g * group_words, out + 4 * g, pairs, p->out_c, relu,
                                           p->stride_w, ic);
                }
                if (p->out_w % 2) {
                    fg_dsp_conv_ring_row(window + last * p->stride_w * ic, w + g * group_words,
                                         out + last * p->out_c + 4 * g, 1, p->out_c, relu, p->stride_w, ic);
                }
            }
        }
    }
}

/* params->packed: per group of four output channels k .. k + 3 the constants of fg/isa/dsp_ring.h, then, doubled,
 * per tap (FG_DSP_CONV_RING_T's order) each channel k's word: for a pair p of window row i's 3 in_c taps (in (column,
 * channel) order) (w_k[i][2p], w_k[i][2p + 1]); rows 0 and 1's last taps (w_k[0][last], w_k[1][last]); row 2's last
 * (w_k[2][last], 0). The generator checks: a 3x3 filter,
 * dilation 1, stride_w 1 or 2, in_c 1 or 3, out_c a multiple of 4 and at most FG_DSP_CONV_RING_MAX_OUT, every
 * channel narrow, the clamp all of int8, and the padded row within FG_DSP_CONV_RING_COLUMNS. The output rows are
 * written in order, each after the input rows its windows read: what the portable kernel's order allows. */
void fg_conv2d_3x3_ring_dsp(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_dsp_conv_ring_run(p, input, output);
}
#endif
