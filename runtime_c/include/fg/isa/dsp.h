/* Inner loops shared by the Armv7E-M (DSP extension) kernel variants: SMLAD tiles over int16 pairs and the output
 * stage with SMMULR. Everything here is static inline; outside __ARM_FEATURE_DSP this header declares nothing.
 *
 * The layouts the generator writes (firmware_gen/ops/variants/dsp.py):
 * - An input "pair" is a word holding two sign-extended int8 inputs of one pixel as int16 halves. SXTB16 on four
 *   inputs x0..x3 gives the pairs (x0, x2) and (x1, x3): depth k is read in that order, pair 2q = (x[4q], x[4q+2]),
 *   pair 2q+1 = (x[4q+1], x[4q+3]); depths past the layer's are zero.
 * - The weights of a channel pair (A, B) for input pair g with depths (k0, k1) are two words of int16 halves,
 *   (A[k0], A[k1]) then (B[k0], B[k1]), extended at generation time: one LDRD per input pair (twice the flash of
 *   int8 weights, two SXTB16 fewer per input pair in the tile).
 * - Each output channel has an fg_dsp_channel: its folded bias and its output stage precomputed. */
#ifndef FG_DSP_SUPPORT_H
#define FG_DSP_SUPPORT_H

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>

#include "fg/support/requantize.h"

/* One output channel's constants. The output is ((v + offset + (v < 0 ? -1 : 0)) >> shift) clamped, with v
 * TFLite's SaturatingRoundingDoublingHighMul(acc, multiplier) = (acc * multiplier + 2^30) >> 31 (the multiplier
 * is positive: the saturating case never occurs). Adding 2^(shift-1) - (v < 0) before the arithmetic shift
 * rounds half away from zero (RoundingDivideByPOT, shift >= 1), and offset = 2^(shift-1) + (zero_point << shift)
 * adds the output zero point on the way; the generator checks that the sum cannot overflow.
 * When |2 acc| < 2^31 for every accumulator the channel's weights, bias and input range allow (checked at
 * generation time), v = SMMULR(2 acc, multiplier) = (2 acc m + 2^31) >> 32 exactly. Other channels ("wide":
 * shift FG_DSP_WIDE, offset TFLite's signed shift), rare (a dead channel's huge bias, a multiplier above 1/2),
 * run fg_multiply_by_quantized_multiplier itself. */
typedef struct {
    int32_t bias;        /* bias + input_offset * (sum of the channel's taps) */
    int32_t multiplier;  /* TFLite's Q31 multiplier */
    int32_t offset;
    int32_t shift;       /* TFLite's right shift, 1..31, or FG_DSP_WIDE */
} fg_dsp_channel;

#define FG_DSP_WIDE 256

static inline __attribute__((always_inline)) int32_t fg_dsp_high_mul(uint32_t acc, int32_t multiplier) {
    int32_t v;
    __asm__("smmulr %0, %1, %2" : "=r"(v) : "r"(acc << 1), "r"(multiplier));
    return v;
}

/* SaturatingRoundingDoublingHighMul(acc, multiplier) for an accumulator already doubled (weights and bias doubled
 * at generation time): SMMULR alone. */
static inline __attribute__((always_inline)) int32_t fg_dsp_high_mul_doubled(int32_t acc2, int32_t multiplier) {
    int32_t v;
    __asm__("smmulr %0, %1, %2" : "=r"(v) : "r"(acc2), "r"(multiplier));
    return v;
}

/* The output of one channel, clamped to [low, high]; full: the clamp is all of int8 (one SSAT). */
static inline __attribute__((always_inline)) int8_t fg_dsp_requantize(uint32_t acc, const fg_dsp_channel *ch,
                                                                       int wide, int full, int32_t low,
                                                                       int32_t high, int32_t zero_point) {
    int32_t t;
    if (wide) {
        t = fg_multiply_by_quantized_multiplier(fg_wrapped_i32(acc), ch->multiplier, (int)ch->offset) + zero_point;
    } else {
        const int32_t v = fg_dsp_high_mul(acc, ch->multiplier);
        t = (v + ch->offset + (v >> 31)) >> ch->shift;
    }
    if (full) {
        return (int8_t)__ssat(t, 8);
    }
    t = t < low ? low : t;
    return (int8_t)(t > high ? high : t);
}

/* The narrow output stage of one accumulator before the clamp (see fg_dsp_channel). */
static inline __attribute__((always_inline)) int32_t fg_dsp_narrow(uint32_t acc, int32_t multiplier, int32_t offset,
                                                                  int32_t shift) {
    const int32_t v = fg_dsp_high_mul(acc, multiplier);
    return (v + offset + (v >> 31)) >> shift;
}

/* t clamped to [low, high]; full: the clamp is all of int8 (one SSAT). */
static inline __attribute__((always_inline)) int8_t fg_dsp_clamp(int32_t t, int full, int32_t low, int32_t high) {
    if (full) {
        return (int8_t)__ssat(t, 8);
    }
    t = t < low ? low : t;
    return (int8_t)(t > high ? high : t);
}

/* The narrow output stage of a doubled accumulator before the clamp: a narrow channel's bias and int16 weights are
 * doubled at generation time (2 acc fits: SMMULR alone is the high multiply). */
static inline __attribute__((always_inline)) int32_t fg_dsp_narrow_doubled(int32_t acc2, const fg_dsp_channel *k) {
    const int32_t v = fg_dsp_high_mul_doubled(acc2, k->multiplier);
    return (v + k->offset + (v >> 31)) >> k->shift;
}

/* The output of one channel of a doubled accumulator (a wide channel's are not doubled). */
static inline __attribute__((always_inline)) int8_t fg_dsp_output_doubled(uint32_t acc, const fg_dsp_channel *k,
                                                                           const fg_requant_params *q) {
    if (k->shift == FG_DSP_WIDE) {
        return fg_dsp_requantize(acc, k, 1, 0, q->activation_min, q->activation_max, q->output_offset);
    }
    return fg_dsp_clamp(fg_dsp_narrow_doubled((int32_t)acc, k), 0, q->activation_min, q->activation_max);
}

/* The depthwise kernels' ring of input rows: five rows, input row y in slot (y + pad_top) % 3 and slots 0 and 1 again
 * as 3 and 4, so that a window's three rows are consecutive. The slots are counted round, never divided (% 3 is an
 * SDIV at -Os): next, the first input row not yet in the ring, goes to slot `slot`; the window's top row is in slot
 * `top`. */
typedef struct {
    int32_t next, slot, top;
} fg_dsp_ring;

/* The ring before an image's first output row. */
static inline fg_dsp_ring fg_dsp_ring_start(int32_t pad_top) {
    const fg_dsp_ring ring = {-pad_top, 0, 0};
    return ring;
}

/* Passes each input row top .. top + 2 of the window from input row `top` that the ring lacks to fill(context, row,
 * slot), rows above the window skipped (a stride of 3 or more). */
static inline __attribute__((always_inline)) void fg_dsp_ring_fill(fg_dsp_ring *ring, int32_t top,
                                                                   void (*fill)(void *, int32_t, int32_t),
                                                                   void *context) {
    for (; ring->next < top + 3; ++ring->next, ring->slot = ring->slot == 2 ? 0 : ring->slot + 1) {
        if (ring->next >= top) {
            fill(context, ring->next, ring->slot);
        }
    }
}

/* The window moved down `stride` input rows (its top slot with it). */
static inline void fg_dsp_ring_advance(fg_dsp_ring *ring, int32_t stride) {
    ring->top += stride;
    while (ring->top >= 3) {
        ring->top -= 3;
    }
}

/* Whether no channel of ch[0..channels) is wide. */
static inline int fg_dsp_all_narrow(const fg_dsp_channel *ch, int32_t channels) {
    for (int32_t c = 0; c < channels; ++c) {
        if (ch[c].shift == FG_DSP_WIDE) {
            return 0;
        }
    }
    return 1;
}

/* Two pixels of an image row (`%[src]`, pixels `%[step]` bytes apart; src moved past both) sign-extended: r4, r5 the
 * first pixel's four channels as SXTB16 gives them, (c0, c2), (c1, c3); r6, r7 the second's. */
#define FG_DSP_EXTEND_TWO_PIXELS                \
    "ldr r4, [%[src]]\n\t"                      \
    "ldr r6, [%[src], %[step]]\n\t"             \
    "add %[src], %[src], %[step], lsl #1\n\t"   \
    "sxtb16 r5, r4, ror #8\n\t"                 \
    "sxtb16 r4, r4\n\t"                         \
    "sxtb16 r7, r6, ror #8\n\t"                 \
    "sxtb16 r6, r6\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The Cortex-M7 (the build passes FG_CORE_CORTEX_M7: GCC's -mcpu=cortex-m7 defines nothing the M4's does not)
 * dual-issues a single LDR with an SMLAD, but not LDM or LDRD, and an LDR's result is ready for the next cycle's
 * SMLAD. So there the 3 x 2 tile's pass of one input pair (fg_dsp_tile_3x2, FG_DSP_TILE_ROUND) loads its five
 * words with LDRs at offsets from the two pointers, each LDR issued with an SMLAD (six cycles a pass in llvm-mca's
 * cortex-m7 model, against nine with LDM + LDRD), and loads the next pass's first input word (r10) and first weight
 * word (lr) while its own last SMLADs run. Pass p of a round reads x at [x + 12 p] and w at [w + 8 p]; the round's
 * last pass moves x and w past the round and loads nothing of the next round, whose first words are loaded before
 * it, so nothing past the tile's pairs and weights is read. No LDR writes its base back: llvm-mca's model writes
 * the base at once, which waits for the SMLAD before it. The same SMLADs on the same registers as FG_DSP_TILE_PAIR:
 * weights A in lr, B in r3, pixels in r10-r12. */
#define FG_DSP_TILE_HEAD_M7(p)                   \
    "ldr.n r3, [%[w], #" #p " * 8 + 4]\n\t"     \
    "smlad r4, r10, lr, r4\n\t"                 \
    "ldr r11, [%[x], #" #p " * 12 + 4]\n\t"     \
    "smlad r7, r10, r3, r7\n\t"                 \
    "ldr r12, [%[x], #" #p " * 12 + 8]\n\t"     \
    "smlad r5, r11, lr, r5\n\t"
#define FG_DSP_TILE_PASS_M7(p)                   \
    FG_DSP_TILE_HEAD_M7(p)                       \
    "ldr r10, [%[x], #" #p " * 12 + 12]\n\t"    \
    "smlad r8, r11, r3, r8\n\t"                 \
    "smlad r6, r12, lr, r6\n\t"                 \
    "ldr lr, [%[w], #" #p " * 8 + 8]\n\t"       \
    "smlad r9, r12, r3, r9\n\t"
/* A pass that loads nothing of the next and moves w past its weights, with X_MOVE and COUNT (instructions or
 * nothing) issued with its last SMLADs. */
#define FG_DSP_TILE_END_M7(p, X_MOVE, COUNT)    \
    FG_DSP_TILE_HEAD_M7(p)                       \
    X_MOVE                                       \
    "smlad r8, r11, r3, r8\n\t"                 \
    "add %[w], %[w], #(" #p " + 1) * 8\n\t"     \
    "smlad r6, r12, lr, r6\n\t"                 \
    COUNT                                        \
    "smlad r9, r12, r3, r9\n\t"
/* The last pass of a round (p = its index): loads nothing of the next, moves x and w past the round's pairs and
 * weights and counts the round down in register `n` (the flags for the branch back). */
#define FG_DSP_TILE_LAST_M7(p, n) \
    FG_DSP_TILE_END_M7(p, "add %[x], %[x], #(" #p " + 1) * 12\n\t", "subs %[" #n "], %[" #n "], #1\n\t")
#endif

/* acc[c * 3 + p] += sum over `blocks` x 4 input pairs g of pixel p's pair x[3 g + p] . channel c's pair of w[g],
 * for pixels p < 3 and the channel pair c < 2 (layouts above). Per 8 depths: 4 LDM of three pixels' pairs, 4 LDRD
 * of the weights, 24 SMLAD, 2 for the loop. blocks >= 1. */
static __attribute__((noinline, unused)) void fg_dsp_tile_3x2(const uint32_t *x, const uint32_t *w,
                                                                   int32_t blocks, uint32_t acc[6]) {
    register const uint32_t *rx __asm__("r0") = x;
    register const uint32_t *rw __asm__("r1") = w;
    register int32_t rn __asm__("r2") = blocks;
    register uint32_t *racc __asm__("r3") = acc;
/* B: the register of channel B's weights (r3; the short tile stores' r2, which keep r3 at the table). */
#define FG_DSP_TILE_PAIR_ON(B)               \
    "ldm %[x]!, {r10, r11, r12}\n\t"         \
    "ldrd lr, " B ", [%[w]], #8\n\t"         \
    "smlad r4, r10, lr, r4\n\t"              \
    "smlad r5, r11, lr, r5\n\t"              \
    "smlad r6, r12, lr, r6\n\t"              \
    "smlad r7, r10, " B ", r7\n\t"           \
    "smlad r8, r11, " B ", r8\n\t"           \
    "smlad r9, r12, " B ", r9\n\t"
#define FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR_ON("r3")
#if defined(FG_CORE_CORTEX_M7)  /* four passes, the first words loaded first */
#define FG_DSP_TILE_BLOCK                                                                                       \
    "ldr r10, [%[x]]\n\t"                                                                                       \
    "ldr lr, [%[w]]\n\t"                                                                                        \
    FG_DSP_TILE_PASS_M7(0) FG_DSP_TILE_PASS_M7(1) FG_DSP_TILE_PASS_M7(2) FG_DSP_TILE_LAST_M7(3, n)
#else
#define FG_DSP_TILE_BLOCK                                                                                       \
    FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR                                          \
    "subs %[n], %[n], #1\n\t"
#endif
    __asm__ volatile(
        "ldm %[acc], {r4-r9}\n\t"
        "push {%[acc]}\n"
        "1:\n\t"
        FG_DSP_TILE_BLOCK
        "bne 1b\n\t"
        "pop {%[acc]}\n\t"
        "stm %[acc], {r4-r9}\n\t"
        : [x] "+r"(rx), [w] "+r"(rw), [n] "+r"(rn), [acc] "+r"(racc)
        :
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory");
}

/* Bytes 1 and 3 of v sign-extended into halfwords (GCC 12's arm_acle.h has no __ror). */
static inline uint32_t fg_dsp_odd_s8x2(uint32_t v) {
    uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
}

/* The input pairs of `words` (>= 0) words of int8 inputs at `from` (any alignment) into x with the tile's stride 3
 * (word k's pairs at x[6k] and x[6k + 3]): an odd word first, then an odd pair of words, then four words a pass
 * (per word LDR, 2 SXTB16, 2 STR; 23 instructions per 4 words with the loop). */
static inline void fg_dsp_extend_words(const int8_t *from, int32_t words, uint32_t *x) {
    const int8_t *const end = from + 4 * words;
    uint32_t v, even, odd;
#if defined(FG_CORE_CORTEX_M7)
    /* The Cortex-M7's order (FG_CORE_CORTEX_M7, see FG_DSP_TILE_PASS_M7): the pass of four words loads them by four
     * LDRs at offsets, then each SXTB16 is issued with the STR of the one before it (llvm-mca cortex-m7: 12 cycles a
     * pass, against 22 in the order below, whose post-indexed LDR waits for the STR before it). */
    uint32_t v1, v2, v3;
#define FG_DSP_EXTEND_MORE , [v1] "=&r"(v1), [v2] "=&r"(v2), [v3] "=&r"(v3)
#define FG_DSP_EXTEND_PASS                            \
    "ldr %[v], [%[f]]\n\t"                            \
    "ldr %[v1], [%[f], #4]\n\t"                       \
    "ldr %[v2], [%[f], #8]\n\t"                       \
    "ldr %[v3], [%[f], #12]\n\t"                      \
    "sxtb16 %[even], %[v]\n\t"                        \
    "add %[f], %[f], #16\n\t"                         \
    "sxtb16 %[odd], %[v], ror #8\n\t"                 \
    "str %[even], [%[x]]\n\t"                         \
    "sxtb16 %[even], %[v1]\n\t"                       \
    "str %[odd], [%[x], #12]\n\t"                     \
    "sxtb16 %[odd], %[v1], ror #8\n\t"                \
    "str %[even], [%[x], #24]\n\t"                    \
    "sxtb16 %[even], %[v2]\n\t"                       \
    "str %[odd], [%[x], #36]\n\t"                     \
    "sxtb16 %[odd], %[v2], ror #8\n\t"                \
    "str %[even], [%[x], #48]\n\t"                    \
    "sxtb16 %[even], %[v3]\n\t"                       \
    "str %[odd], [%[x], #60]\n\t"                     \
    "sxtb16 %[odd], %[v3], ror #8\n\t"                \
    "str %[even], [%[x], #72]\n\t"                    \
    "cmp %[f], %[end]\n\t"                            \
    "str %[odd], [%[x], #84]\n\t"                     \
    "add %[x], %[x], #96\n\t"
#else
#define FG_DSP_EXTEND_MORE
#define FG_DSP_EXTEND_PASS                                                                         \
    FG_DSP_EXTEND_WORD(0) FG_DSP_EXTEND_WORD(24) FG_DSP_EXTEND_WORD(48) FG_DSP_EXTEND_WORD(72) \
    "add %[x], %[x], #96\n\t"                                                                     \
    "cmp %[f], %[end]\n\t"
#endif
#define FG_DSP_EXTEND_WORD(at)                        \
    "ldr %[v], [%[f]], #4\n\t"                        \
    "sxtb16 %[even], %[v]\n\t"                        \
    "sxtb16 %[odd], %[v], ror #8\n\t"                 \
    "str %[even], [%[x], #" #at "]\n\t"               \
    "str %[odd], [%[x], #" #at " + 12]\n\t"
    __asm__ volatile("tst %[n], #1\n\t"
                     "beq 1f\n\t"
                     FG_DSP_EXTEND_WORD(0)
                     "add %[x], %[x], #24\n"
                     "1:\n\t"
                     "tst %[n], #2\n\t"
                     "beq 2f\n\t"
                     FG_DSP_EXTEND_WORD(0) FG_DSP_EXTEND_WORD(24)
                     "add %[x], %[x], #48\n"
                     "2:\n\t"
                     "cmp %[f], %[end]\n\t"
                     "beq 4f\n"
                     "3:\n\t"
                     FG_DSP_EXTEND_PASS
                     "bne 3b\n"
                     "4:\n\t"
                     : [f] "+r"(from), [x] "+r"(x), [v] "=&r"(v), [even] "=&r"(even), [odd] "=&r"(odd)
                       FG_DSP_EXTEND_MORE
                     : [end] "r"(end), [n] "r"(words)
                     : "cc", "memory");
#undef FG_DSP_EXTEND_WORD
#undef FG_DSP_EXTEND_PASS
#undef FG_DSP_EXTEND_MORE
}

/* Sign-extends `depth` int8 inputs into `pairs` input pairs (zeros past depth): pair g at out[stride * g], stride
 * being the tile's pixel count. pairs is even and 2 * pairs >= depth. */
static inline void fg_dsp_extend(const int8_t *x, int32_t depth, int32_t pairs, uint32_t *out, int32_t stride) {
    int32_t k = 0;
    if (stride == 3) {
        k = depth & ~3;
        fg_dsp_extend_words(x, depth >> 2, out);
        out += 6 * (depth >> 2);
    }
    for (; k + 4 <= depth; k += 4, out += 2 * stride) {
        uint32_t v;
        __builtin_memcpy(&v, x + k, sizeof v);
        out[0] = __sxtb16(v);
        out[stride] = fg_dsp_odd_s8x2(v);
    }
    for (; k < 2 * pairs; k += 4, out += 2 * stride) {
        uint32_t v = 0;
        for (int32_t j = 0; j < 4 && k + j < depth; ++j) {
            v |= (uint32_t)(uint8_t)x[k + j] << (8 * j);
        }
        out[0] = __sxtb16(v);
        out[stride] = fg_dsp_odd_s8x2(v);
    }
}

/* Bias of channels c, c + 1 into the tile's accumulators (0 for a channel past out_c). */
static inline void fg_dsp_bias_3x2(const fg_dsp_channel *ch, int32_t c, int32_t out_c, uint32_t acc[6]) {
    const uint32_t a = (uint32_t)ch[c].bias, b = c + 1 < out_c ? (uint32_t)ch[c + 1].bias : 0u;
    acc[0] = acc[1] = acc[2] = a;
    acc[3] = acc[4] = acc[5] = b;
}

/* What fg_dsp_tile_store needs besides the pixels' pairs and the weights: FG_DSP_TILE_STORE copies it into a frame
 * at sp (one LDM, one STM a call; a local array of the function, so that its frame size in the call graph counts
 * it, which the assembler checks is at sp) and reads it there through sp, the offsets below. */
typedef struct {
    uintptr_t ch;       /*  0: &multiplier of the pair's first channel (its fg_dsp_channel + 4); advances 32 a pair */
    int8_t *out;        /*  4: pixel 0's output of the pair's first channel; advances 2 a pair */
    int32_t stride;     /*  8: from one pixel's outputs to the next */
    const uint32_t *x;  /* 12: the pixels' first pairs, where each tile starts again */
    uintptr_t end;      /* 16: ch past the last channel pair run */
    int32_t passes;     /* 20: rounds of FG_DSP_ROUND_PAIRS input pairs: the pairs after the first (>= 3) rounded
                         * up; the short tile stores' (not the M7's): the call's tiles (FG_DSP_SHORT_NEXT_TILE;
                         * fg_dsp_tile_job's 1 for their 4 or 8 pairs: one tile) */
    int32_t entry;      /* 24: where the first pass enters (FG_DSP_ENTRY: bytes from the pass's start, the frame holding
                         * the address there instead; on the M7 the pairs after the first % 16); the short tile
                         * stores': the next tile's int8 inputs (three pixels of 2 * pairs inputs each) */
    int32_t low, high;  /* 28, 32: the clamp */
    int32_t full;       /* 36: the clamp is all of int8 */
#if defined(FG_CORE_CORTEX_M7)
    uintptr_t x_entered;  /* 40: x where the entered pass reads the second input pair (its offsets 12 a pass) */
    int32_t w_entered;    /* 44: added to w at its second input pair for the entered pass (offsets 8 a pass) */
#endif
} fg_dsp_job;

/* The input pairs a round of FG_DSP_TILE_ROUND runs: 32 on Armv8-M Mainline without MVE (the M33: the round's 1 KB
 * of code well inside the U575's 8 KB ICACHE; a taken branch and the count's SUBS a round, 4 cycles, saved every 32
 * pairs; GCC defines __ARM_ARCH_8M_MAIN__ for the M55 too, whose build keeps its code), 16 on the M4 (its tile
 * stores' loops within the 1 KB the L4R5's ART caches) and the M7. */
#if defined(__ARM_ARCH_8M_MAIN__) && !defined(__ARM_FEATURE_MVE) && !defined(FG_CORE_CORTEX_M7)
#define FG_DSP_ROUND_SHIFT 5
#define FG_DSP_DEEP_SHORT_STORES 1  /* the straight tile stores for 32 and 64 input pairs (FG_DSP_TILE_SHORT_32, _64) */
#else
#define FG_DSP_ROUND_SHIFT 4
#define FG_DSP_DEEP_SHORT_STORES 0
#endif
#define FG_DSP_ROUND_PAIRS (1 << FG_DSP_ROUND_SHIFT)

#if defined(FG_CORE_CORTEX_M7)
/* The Cortex-M7's passes (FG_DSP_TILE_PASS_M7), entered by the frame's address as the M4's (FG_DSP_ENTRY_ADDRESS)
 * with x and w moved back by the passes skipped (FG_DSP_FIRST_PAIR) and the entered pass's first words loaded; those
 * of the first pass of every further round at 9. Every pass is FG_DSP_PAIR_BYTES long (checked: its LDR r3 narrow,
 * the rest wide), so that the entry is a multiple of it. x and w end past the tile's pairs and weights. */
#define FG_DSP_PAIR_BYTES 42
#define FG_DSP_TEXT_(x) #x
#define FG_DSP_TEXT(x) FG_DSP_TEXT_(x)
#define FG_DSP_TILE_ROUND                     \
    "9:\n\t"                                  \
    "ldr r10, [%[x]]\n\t"                     \
    "ldr lr, [%[w]]\n"                        \
    "10:\n\t" FG_DSP_TILE_PASS_M7(0)          \
    "11:\n\t" FG_DSP_TILE_PASS_M7(1)          \
    FG_DSP_TILE_PASS_M7(2) FG_DSP_TILE_PASS_M7(3) FG_DSP_TILE_PASS_M7(4) FG_DSP_TILE_PASS_M7(5)           \
    FG_DSP_TILE_PASS_M7(6) FG_DSP_TILE_PASS_M7(7) FG_DSP_TILE_PASS_M7(8) FG_DSP_TILE_PASS_M7(9)           \
    FG_DSP_TILE_PASS_M7(10) FG_DSP_TILE_PASS_M7(11) FG_DSP_TILE_PASS_M7(12) FG_DSP_TILE_PASS_M7(13)       \
    FG_DSP_TILE_PASS_M7(14)                   \
    "12:\n\t" FG_DSP_TILE_LAST_M7(15, job)    \
    ".if (11b - 10b != " FG_DSP_TEXT(FG_DSP_PAIR_BYTES) ") || (12b - 10b != 15 * " FG_DSP_TEXT(FG_DSP_PAIR_BYTES) ")\n\t" \
    ".error \"a pass is not FG_DSP_PAIR_BYTES long\"\n\t.endif\n\t"                                            \
    "bne 9b\n\t"
#else
#define FG_DSP_PAIR_BYTES 32
#define FG_DSP_TILE_PAIRS_8                                                                            \
    FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR \
    FG_DSP_TILE_PAIR FG_DSP_TILE_PAIR
/* The input pairs of FG_DSP_TILE_STORE's tile after its first (which starts the accumulators from the biases):
 * their count % FG_DSP_ROUND_PAIRS enters the round of that many pairs that far from its end (BX to the frame's
 * address, in r3), r2 counting the rounds. */
#if FG_DSP_ROUND_PAIRS == 32
#define FG_DSP_TILE_ROUND_PAIRS FG_DSP_TILE_PAIRS_8 FG_DSP_TILE_PAIRS_8 FG_DSP_TILE_PAIRS_8 FG_DSP_TILE_PAIRS_8
#else
#define FG_DSP_TILE_ROUND_PAIRS FG_DSP_TILE_PAIRS_8 FG_DSP_TILE_PAIRS_8
#endif
#define FG_DSP_TILE_ROUND "10:\n\t" FG_DSP_TILE_ROUND_PAIRS "subs %[job], %[job], #1\n\tbne 10b\n\t"
#endif

/* The fully connected runs' output stage of one narrow doubled accumulator `acc` (a register other than r4-r8), the
 * clamp all of int8: fg_dsp_channel k of the table at r7 (r4-r6 scratch), the byte at r8 + byte. */
#define FG_DSP_FC_OUT(acc, k, byte)                     \
    "ldrd r4, r5, [r7, #" #k " * 16 + 4]\n\t"         \
    "ldr r6, [r7, #" #k " * 16 + 12]\n\t"             \
    "smmulr " acc ", " acc ", r4\n\t"                   \
    "add r5, r5, " acc "\n\t"                           \
    "add " acc ", r5, " acc ", asr #31\n\t"             \
    "asr " acc ", " acc ", r6\n\t"                      \
    "ssat " acc ", #8, " acc "\n\t"                     \
    "strb " acc ", [r8, #" #byte "]\n\t"
/* Without the rounding correction of negative values (the output zero point -128 and the clamp all of int8: a
 * negative value clamps to -128 either way): SMMLAR adds the offset on the way. */
#define FG_DSP_FC_OUT_RELU(acc, k, byte)                \
    "ldrd r4, r5, [r7, #" #k " * 16 + 4]\n\t"         \
    "ldr r6, [r7, #" #k " * 16 + 12]\n\t"             \
    "smmlar " acc ", " acc ", r4, r5\n\t"               \
    "asr " acc ", " acc ", r6\n\t"                      \
    "ssat " acc ", #8, " acc "\n\t"                     \
    "strb " acc ", [r8, #" #byte "]\n\t"

/* The output stage of accumulator r before the clamp: multiplier m, offset o, shift s, r11 scratch. */
#define FG_DSP_NARROW_DOUBLED(r, m, o, s) \
    "smmulr " r ", " r ", " m "\n\t"      \
    "add r11, " r ", " o "\n\t"           \
    "add " r ", r11, " r ", asr #31\n\t"  \
    "asr " r ", " r ", " s "\n\t"
/* SMMLAR adds the offset on the way (no rounding correction to need v alone). */
#define FG_DSP_RELU_DOUBLED(r, m, o, s)           \
    "smmlar " r ", " r ", " m ", " o "\n\t"       \
    "asr " r ", " r ", " s "\n\t"
#define FG_DSP_CLAMP(r)                  \
    "cmp " r ", r12\n\t"                 \
    "it lt\n\t"                          \
    "movlt " r ", r12\n\t"               \
    "cmp " r ", lr\n\t"                  \
    "it gt\n\t"                          \
    "movgt " r ", lr\n\t"
/* The pass entered first: the pairs after the first, % FG_DSP_ROUND_PAIRS, are that many passes from the round's
 * end. */
#define FG_DSP_ENTERED_PASS(pairs) \
    ((FG_DSP_ROUND_PAIRS - (((pairs) - 1) & (FG_DSP_ROUND_PAIRS - 1))) & (FG_DSP_ROUND_PAIRS - 1))
/* The rounds of FG_DSP_TILE_ROUND for the pairs after the first. */
#define FG_DSP_ROUNDS(pairs) (((pairs) - 1 + FG_DSP_ROUND_PAIRS - 1) >> FG_DSP_ROUND_SHIFT)
/* The frame's entry: bytes from the pass's start (FG_DSP_PAIR_BYTES an input pair) to where the first pass enters,
 * made an address once a call (FG_DSP_ENTRY_ADDRESS: r9 the job's entry) that FG_DSP_FIRST_PAIR ends with a BX to. */
#define FG_DSP_ENTRY(pairs) (FG_DSP_PAIR_BYTES * FG_DSP_ENTERED_PASS(pairs))
#define FG_DSP_ENTRY_ADDRESS "adr lr, 10f\n\tadd r9, r9, lr\n\torr r9, r9, #1\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The pair's first input pair from the biases (r3 at its table; x the frame's) with the second pass's first words
 * (r10, lr) loaded after it, and A, B, C, D (the frame's loads, or nothing) issued with its SMLADs and loads. */
#define FG_DSP_BIAS_PAIR_M7(A, B, C, D) \
    "ldr %[x], [sp, #12]\n\t"         \
    "ldr r6, [%[w], #4]\n\t"          \
    "ldr r4, [r3, #-4]\n\t"           \
    "ldr r7, [r3, #12]\n\t"           \
    "ldr r11, [%[x], #4]\n\t"         \
    "ldr r10, [%[x]]\n\t"             \
    "ldr r12, [%[x], #8]\n\t"         \
    "smlad r8, r11, r6, r7\n\t"       \
    "smlad r9, r12, r6, r7\n\t"       \
    "ldr lr, [%[w]]\n\t"              \
    "smlad r7, r10, r6, r7\n\t"       \
    A                                  \
    "smlad r5, r11, lr, r4\n\t"       \
    B                                  \
    "smlad r6, r12, lr, r4\n\t"       \
    "smlad r4, r10, lr, r4\n\t"       \
    "ldr lr, [%[w], #8]\n\t"          \
    C                                  \
    "ldr r10, [%[x], #12]\n\t"        \
    D
/* The next channel pair's biases (r3 at its table), the frame's x (its first input pair read), passes and entry,
 * the pair's first input pair from the biases by single LDRs each issued with an SMLAD, the entered pass's first
 * words (r10, lr) loaded, x and w moved for it (the frame's x_entered, w_entered), then into the pass: 11 cycles in
 * llvm-mca's cortex-m7 model (hill-climbed), against 16 and a taken branch for LDM + LDRD + the TBH of before. */
#define FG_DSP_FIRST_PAIR                                                                                  \
    FG_DSP_BIAS_PAIR_M7("ldr r3, [sp, #44]\n\t", "ldr %[job], [sp, #20]\n\t", "add %[w], %[w], r3\n\t", \
                        "ldr r3, [sp, #24]\n\tldr %[x], [sp, #40]\n\tbx r3\n\t")
/* The call's first pair: the frame's M7 words (the STM takes r3-r12 at most), then FG_DSP_FIRST_PAIR. */
#define FG_DSP_START "ldrd r10, r11, [%[job], #40]\n\tstrd r10, r11, [sp, #40]\n\t" FG_DSP_FIRST_PAIR
#else
/* The first input pair of a channel pair from the biases (r4, r7, loaded before); FG_DSP_FIRST_PAIR then into the
 * pass (BX: r3 the frame's entry, r2 the passes, loaded before). */
#define FG_DSP_BIAS_PAIR                     \
    "ldm %[x]!, {r10, r11, r12}\n\t"         \
    "ldrd lr, r6, [%[w]], #8\n\t"            \
    "smlad r8, r11, r6, r7\n\t"              \
    "smlad r9, r12, r6, r7\n\t"              \
    "smlad r7, r10, r6, r7\n\t"              \
    "smlad r5, r11, lr, r4\n\t"              \
    "smlad r6, r12, lr, r4\n\t"              \
    "smlad r4, r10, lr, r4\n\t"
#define FG_DSP_FIRST_PAIR FG_DSP_BIAS_PAIR "bx r3\n\t"
#define FG_DSP_START                         \
    "ldr r4, [r3, #-4]\n\t"                  \
    "ldr r7, [r3, #12]\n\t"                  \
    "mov %[job], r8\n\t"                     \
    "mov r3, r9\n\t"                         \
    FG_DSP_FIRST_PAIR

/* The stores of a channel pair's six outputs (r2 the first pixel's, r10 the stride: pixel p's at r2 + p * r10 by a
 * register offset, no row pointers to add; channel B's after r2 is moved past channel A's), the frame's loads and
 * stores, and the next pair's biases and FG_DSP_PAIR_NEXT (its passes and entry; nothing for the short tile stores,
 * which define it again before theirs), in one run of single loads and stores (each after the first pipelined): past
 * the last pair, the biases are the table's next words (in the table or the weights after it), unused. HEAD: loads
 * before the stores. */
#define FG_DSP_PAIR_NEXT "ldr %[job], [sp, #20]\n\tldr r3, [sp, #24]\n\t"
/* The next pair's table (r3) into the frame: nothing in the short tile stores, whose r3 stays at the table. */
#define FG_DSP_PAIR_CH_STORE "str r3, [sp, #0]\n\t"
#define FG_DSP_PAIR_STORES(HEAD)         \
    HEAD                                 \
    "ldr r0, [sp, #12]\n\t"              \
    FG_DSP_PAIR_CH_STORE                 \
    "strb r5, [r2, r10]\n\t"             \
    "strb r6, [r2, r10, lsl #1]\n\t"     \
    "strb r4, [r2], #1\n\t"              \
    "strb r8, [r2, r10]\n\t"             \
    "strb r9, [r2, r10, lsl #1]\n\t"     \
    "strb r7, [r2], #1\n\t"              \
    "str r2, [sp, #4]\n\t"               \
    "ldr r4, [r3, #-4]\n\t"              \
    "ldr r7, [r3, #12]\n\t"              \
    FG_DSP_PAIR_NEXT
#endif

/* Per channel pair: FG_DSP_FIRST_PAIR, the pass, then the output stage: one LDM of the pair's table from the first
 * channel's multiplier (multiplier, offset, shift, the second's bias unused, multiplier, offset), the first
 * channel's outputs, one LDR of the second's shift (r3 then at the next pair's) with the frame's out and stride
 * (and AFTER_A: the relu's end, the clamping's check of the clamp), the second channel's outputs, the clamp, the
 * stores (FG_DSP_PAIR_STORES) and the next pair's first input pair, fallen into while pairs remain (END_CHECK sets
 * eq past the last pair). The frame (fg_dsp_job's offsets) is at sp: sp-relative loads, no pointer to reload. */
#define FG_DSP_STAGE(OUT, AFTER_A, CLAMP, END_CHECK)                                                               \
        FG_DSP_STAGE_CH                                                                                             \
        "ldm r3!, {r0, r2, r10, r11, r12, lr}\n\t"                                                                  \
        OUT("r4", "r0", "r2", "r10") OUT("r5", "r0", "r2", "r10") OUT("r6", "r0", "r2", "r10")                      \
        "ldr r0, [r3], #8\n\t"                                                                                      \
        "ldr r2, [sp, #4]\n\t"                                                                                      \
        "ldr r10, [sp, #8]\n\t"                                                                                     \
        AFTER_A                                                                                                     \
        OUT("r7", "r12", "lr", "r0") OUT("r8", "r12", "lr", "r0") OUT("r9", "r12", "lr", "r0")                      \
        CLAMP                                                                                                       \
        END_CHECK
/* The tile stores' assembly: BODY with x, w, job in r0-r2 and the frame (fg_dsp_job's words) at sp. */
#define FG_DSP_TILE_ASM(BODY)                                                                                       \
    __asm__ volatile(                                                                                               \
        ".ifnc \"%[frame]\", \"[sp]\"\n\t.error \"the frame is not at sp: %[frame]\"\n\t.endif\n\t"             \
        BODY                                                                                                        \
        : [x] "+r"(rx), [w] "+r"(rw), [job] "+r"(rj), [frame] "=m"(frame)                                           \
        :                                                                                                           \
        : "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")
/* FG_DSP_TILE_STORE: the frame, the first pair (FG_DSP_START), the passes, the output stage STAGE (FG_DSP_STAGE's
 * or the M7 relu's, eq past the last pair), the next pair. HEAD (before the frame) and NEXT (past the last pair):
 * FG_DSP_TILE_STORE_TILES' hooks, empty in the others. */
#define FG_DSP_TILE_STORE_HOOKED(HEAD, NEXT, STAGE, FRAME, OUT_OF_LINE)                                            \
    FG_DSP_TILE_ASM(                                                                                                \
        HEAD                                                                                                        \
        "ldm %[job], {" FRAME "}\n\t"                                                                               \
        FG_DSP_ENTRY_ADDRESS                                                                                        \
        "stm sp, {" FRAME "}\n\t"                                                                                   \
        FG_DSP_START                                                                                                \
        ".p2align 2\n\t" /* the section 4-aligned: the ADR above, resolved by the assembler, holds once linked */   \
        FG_DSP_TILE_ROUND                                                                                           \
        STAGE                                                                                                       \
        "beq 5f\n\t"                                                                                                \
        FG_DSP_FIRST_PAIR                                                                                           \
        "5:\n\t"                                                                                                    \
        NEXT                                                                                                        \
        OUT_OF_LINE)
#define FG_DSP_TILE_STORE(STAGE, FRAME, OUT_OF_LINE) FG_DSP_TILE_STORE_HOOKED("", "", STAGE, FRAME, OUT_OF_LINE)
#if !defined(FG_CORE_CORTEX_M7)
/* FG_DSP_TILE_STORE over the job's tiles (fg_dsp_tiles_job, fg/isa/dsp_tile_store.h): HEAD copies its words from 40
 * into the frame; past a tile's last channel pair (r0 the tile's x, r2 and r3 the frame's passes and entry, loaded
 * by FG_DSP_PAIR_NEXT), while the frame's tiles count down, x moves x_bytes on, the table and w back to the first
 * pair (ch0, w0), out from past the tile's last pair (2 bytes a pair: the table's 32 >> 4) to the next tile's first
 * pixel (3 strides on), and into the next tile's first pair: a call a block of tiles instead of one a tile (~100
 * ESTIMATED cycles a tile on the M4: the call, the frame, the caller's loop; this ~28). */
#define FG_DSP_TILES_HEAD                 \
    "add r3, %[job], #40\n\t"            \
    "ldm r3, {r4, r5, r6, r7}\n\t"       \
    "add r3, sp, #40\n\t"                \
    "stm r3, {r4, r5, r6, r7}\n\t"
#define FG_DSP_TILES_NEXT                 \
    "ldr r12, [sp, #40]\n\t"             \
    "subs r12, r12, #1\n\t"              \
    "beq 8f\n\t"                         \
    "str r12, [sp, #40]\n\t"             \
    "ldrd lr, r11, [sp, #44]\n\t"        \
    "ldr r1, [sp, #52]\n\t"              \
    "add r0, r0, lr\n\t"                 \
    "str r0, [sp, #12]\n\t"              \
    "ldr lr, [sp, #16]\n\t"              \
    "ldrd r12, r10, [sp, #4]\n\t"        \
    "sub lr, lr, r11\n\t"                \
    "sub r12, r12, lr, lsr #4\n\t"       \
    "add r10, r10, r10, lsl #1\n\t"      \
    "add r12, r12, r10\n\t"              \
    "str r12, [sp, #4]\n\t"              \
    "str r11, [sp, #0]\n\t"              \
    "ldr r4, [r11, #-4]\n\t"             \
    "ldr r7, [r11, #12]\n\t"             \
    FG_DSP_FIRST_PAIR                     \
    "8:\n\t"
#define FG_DSP_TILE_STORE_TILES(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_STORE_HOOKED(FG_DSP_TILES_HEAD, FG_DSP_TILES_NEXT, STAGE, FRAME, OUT_OF_LINE)
#endif
/* Three pixels' input words in r4, r5 and r6 sign-extended and stored at X (moved past them): the even pairs, then
 * the odd ones (r4-r9), the order of a tile's x. */
#define FG_DSP_EXTEND_THREE_WORDS(X)   \
    "sxtb16 r7, r4, ror #8\n\t"      \
    "sxtb16 r4, r4\n\t"              \
    "sxtb16 r8, r5, ror #8\n\t"      \
    "sxtb16 r5, r5\n\t"              \
    "sxtb16 r9, r6, ror #8\n\t"      \
    "sxtb16 r6, r6\n\t"              \
    "stm " X "!, {r4, r5, r6, r7, r8, r9}\n\t"
/* Four pixels' input words in r4-r7 sign-extended and stored at X (moved past them), the even pairs then the odd ones
 * (r4-r11), the order of the M7's four-pixel tiles' x; AFTER_TWO, AFTER_THREE and AFTER_FOUR (instructions of the
 * caller's, or nothing) issue after that many pixels' words, where llvm-mca's cortex-m7 model pairs them (a loop's
 * two ADDs and CMP: 11 cycles a word of the four, 12 with both ADDs after the second pixel's). */
#define FG_DSP_EXTEND_FOUR_WORDS(X, AFTER_TWO, AFTER_THREE, AFTER_FOUR) \
    "sxtb16 r8, r4, ror #8\n\t"                                         \
    "sxtb16 r4, r4\n\t"                                                 \
    "sxtb16 r9, r5, ror #8\n\t"                                         \
    "sxtb16 r5, r5\n\t"                                                 \
    AFTER_TWO                                                           \
    "sxtb16 r10, r6, ror #8\n\t"                                        \
    "sxtb16 r6, r6\n\t"                                                 \
    AFTER_THREE                                                         \
    "sxtb16 r11, r7, ror #8\n\t"                                        \
    "sxtb16 r7, r7\n\t"                                                 \
    AFTER_FOUR                                                          \
    "stm " X "!, {r4, r5, r6, r7, r8, r9, r10, r11}\n\t"
/* The tile store for 4 or 8 input pairs (in_c <= 8 or <= 16), where the entered pass's set-up (on the M7 the
 * frame's passes, entry and moved x and w; the BX, the round's count and branches) costs as much as a pass: per
 * channel pair the first input pair from the biases, the rest straight, STAGE, and back while pairs remain. The
 * frame's words as FG_DSP_TILE_STORE's; its passes, entry (and the M7's x_entered, w_entered) unused. */
#if defined(FG_CORE_CORTEX_M7)
#define FG_DSP_SHORT_START ""
#define FG_DSP_SHORT_FIRST FG_DSP_BIAS_PAIR_M7("", "", "", "")
#define FG_DSP_SHORT_PASS(p) FG_DSP_TILE_PASS_M7(p)
/* The last pass with the stage's first load (FG_DSP_STAGE_CH, empty in the short stores) issued before channel A's
 * last two SMLADs: 50 cycles a channel pair at in_c 8 in llvm-mca's cortex-m7 model, against 52 after the pass. */
#define FG_DSP_SHORT_LAST(p)                    \
    "ldr.n r3, [%[w], #" #p " * 8 + 4]\n\t"     \
    "smlad r4, r10, lr, r4\n\t"                 \
    "ldr r11, [%[x], #" #p " * 12 + 4]\n\t"     \
    "smlad r7, r10, r3, r7\n\t"                 \
    "ldr r12, [%[x], #" #p " * 12 + 8]\n\t"     \
    "smlad r8, r11, r3, r8\n\t"                 \
    "add %[w], %[w], #(" #p " + 1) * 8\n\t"     \
    "smlad r9, r12, r3, r9\n\t"                 \
    "ldr r3, [sp, #0]\n\t"                      \
    "smlad r5, r11, lr, r5\n\t"                 \
    "smlad r6, r12, lr, r6\n\t"
#else  /* the biases loaded before the loop, then by FG_DSP_PAIR_STORES with x */
#define FG_DSP_SHORT_START "ldr r4, [r3, #-4]\n\tldr r7, [r3, #12]\n\t"
#define FG_DSP_SHORT_FIRST FG_DSP_BIAS_PAIR
#define FG_DSP_SHORT_PASS(p) FG_DSP_TILE_PAIR_ON("r2")
#define FG_DSP_SHORT_LAST(p) FG_DSP_TILE_PAIR_ON("r2")
/* Word k of the three pixels at lr (DEPTH bytes apart) sign-extended into the tile's x (r0, moved past them): the
 * even pairs, then the odd ones, as fg_dsp_pointwise_tile's. */
#define FG_DSP_SHORT_EXTEND_WORD(k, DEPTH)              \
    "ldr r4, [lr, #" #k " * 4]\n\t"                  \
    "ldr r5, [lr, #" #k " * 4 + " #DEPTH "]\n\t"     \
    "ldr r6, [lr, #" #k " * 4 + 2 * " #DEPTH "]\n\t" \
    FG_DSP_EXTEND_THREE_WORDS("r0")
/* Past a tile's last channel pair, while the frame's passes (the call's tiles) count down to 0: the next three
 * pixels' inputs (the frame's entry, DEPTH = 2 * pairs each: WORDS their words) sign-extended into x over this
 * tile's pairs, the table (the frame's ch, which the loop leaves as it is) and the weights (W_SHIFT: log2 of a
 * channel pair's weight bytes / its 32 table bytes) back to their first pair, out moved to the next tile's first
 * pixel (r2 past this tile's first pixel's outputs, the channels all of the stride), and back into the loop. One
 * call for a layer's tiles instead of one a tile (its frame and the caller's loop: ~120 cycles a tile on the M33). */
#define FG_DSP_SHORT_NEXT_TILE(WORDS, DEPTH, W_SHIFT) \
    "ldr r12, [sp, #20]\n\t"                          \
    "ldr lr, [sp, #24]\n\t"                           \
    "subs r12, r12, #1\n\t"                           \
    "beq 8f\n\t"                                      \
    "str r12, [sp, #20]\n\t"                          \
    WORDS                                              \
    "add lr, lr, #3 * " #DEPTH "\n\t"                 \
    "str lr, [sp, #24]\n\t"                           \
    "ldr lr, [sp, #0]\n\t"                            \
    "ldr r10, [sp, #8]\n\t"                           \
    "ldr r0, [sp, #12]\n\t"                           \
    "sub r12, r3, lr\n\t"                             \
    "sub r1, r1, r12, lsl #" #W_SHIFT "\n\t"          \
    "mov r3, lr\n\t"                                  \
    "add r2, r2, r10, lsl #1\n\t"                     \
    "str r2, [sp, #4]\n\t"                            \
    "ldr r4, [r3, #-4]\n\t"                           \
    "ldr r7, [r3, #12]\n\t"                           \
    "b 7b\n"                                          \
    "8:\n\t"
#define FG_DSP_SHORT_NEXT_TILE_4                                                             \
    FG_DSP_SHORT_NEXT_TILE(FG_DSP_SHORT_EXTEND_WORD(0, 8) FG_DSP_SHORT_EXTEND_WORD(1, 8), 8, 0)
#define FG_DSP_SHORT_NEXT_TILE_8                                                             \
    FG_DSP_SHORT_NEXT_TILE(FG_DSP_SHORT_EXTEND_WORD(0, 16) FG_DSP_SHORT_EXTEND_WORD(1, 16)   \
                           FG_DSP_SHORT_EXTEND_WORD(2, 16) FG_DSP_SHORT_EXTEND_WORD(3, 16), 16, 1)
#define FG_DSP_SHORT_NEXT_TILE_16                                                                                \
    FG_DSP_SHORT_NEXT_TILE(FG_DSP_SHORT_EXTEND_WORD(0, 32) FG_DSP_SHORT_EXTEND_WORD(1, 32)                      \
                           FG_DSP_SHORT_EXTEND_WORD(2, 32) FG_DSP_SHORT_EXTEND_WORD(3, 32)                      \
                           FG_DSP_SHORT_EXTEND_WORD(4, 32) FG_DSP_SHORT_EXTEND_WORD(5, 32)                      \
                           FG_DSP_SHORT_EXTEND_WORD(6, 32) FG_DSP_SHORT_EXTEND_WORD(7, 32), 32, 2)
/* 16 input pairs (in_c <= 32), not on the M7: straight passes instead of the entered pass's BX, its loop and the
 * frame's passes and entry reloaded (~10 cycles a channel pair on the M33). */
#define FG_DSP_SHORT_PASSES_16                                                                               \
    FG_DSP_SHORT_PASS(1) FG_DSP_SHORT_PASS(2) FG_DSP_SHORT_PASS(3) FG_DSP_SHORT_PASS(4) FG_DSP_SHORT_PASS(5)   \
    FG_DSP_SHORT_PASS(6) FG_DSP_SHORT_PASS(7) FG_DSP_SHORT_PASS(8) FG_DSP_SHORT_PASS(9) FG_DSP_SHORT_PASS(10)  \
    FG_DSP_SHORT_PASS(11) FG_DSP_SHORT_PASS(12) FG_DSP_SHORT_PASS(13) FG_DSP_SHORT_PASS(14) FG_DSP_SHORT_LAST(15)
#define FG_DSP_TILE_SHORT_16(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT(FG_DSP_SHORT_PASSES_16, FG_DSP_SHORT_NEXT_TILE_16, STAGE, FRAME, OUT_OF_LINE)
#if FG_DSP_DEEP_SHORT_STORES
/* 32 and 64 input pairs on the M33 (fg_dsp_tile_job chooses them), a tile a call (no next tile): straight passes
 * instead of the entered round's BX, its count and branch, the frame's table, passes and entry reloaded and stored
 * (13 cycles a channel pair at 64 pairs on the M4 timing, 9 at 32); 1 KB and 2 KB of passes, inside the U575's 8 KB
 * ICACHE. */
#define FG_DSP_SHORT_PASSES_8_MORE                                                                          \
    FG_DSP_SHORT_PASS(0) FG_DSP_SHORT_PASS(0) FG_DSP_SHORT_PASS(0) FG_DSP_SHORT_PASS(0) FG_DSP_SHORT_PASS(0) \
    FG_DSP_SHORT_PASS(0) FG_DSP_SHORT_PASS(0) FG_DSP_SHORT_PASS(0)
#define FG_DSP_SHORT_PASSES_32 \
    FG_DSP_SHORT_PASSES_16 FG_DSP_SHORT_PASSES_8_MORE FG_DSP_SHORT_PASSES_8_MORE
#define FG_DSP_SHORT_PASSES_64 \
    FG_DSP_SHORT_PASSES_32 FG_DSP_SHORT_PASSES_8_MORE FG_DSP_SHORT_PASSES_8_MORE FG_DSP_SHORT_PASSES_8_MORE \
    FG_DSP_SHORT_PASSES_8_MORE
/* Past a tile's last channel pair, while the frame's passes (the call's tiles: fg_dsp_tile_job's 1, the staged
 * blocks' whole tiles, fg_dsp_block_tiles) count down to 0: the next tile's input pairs X_BYTES past this tile's (x
 * laid out tile after tile), its out the frame's entry (moved 3 strides on for the one after), the table and the
 * weights (W_SHIFT as FG_DSP_SHORT_NEXT_TILE's) back to their first pair, and back into the loop: a call a channel
 * block instead of one a tile (~80 ESTIMATED cycles a tile on the M33: the caller's loop, the frame, the entry). */
#define FG_DSP_SHORT_NEXT_X(X_BYTES, W_SHIFT) \
    "ldr r12, [sp, #20]\n\t"                 \
    "subs r12, r12, #1\n\t"                  \
    "beq 8f\n\t"                             \
    "str r12, [sp, #20]\n\t"                 \
    "ldr r2, [sp, #24]\n\t"                  \
    "ldr r10, [sp, #8]\n\t"                  \
    "ldr lr, [sp, #0]\n\t"                   \
    "add r0, r0, #" #X_BYTES "\n\t"          \
    "str r0, [sp, #12]\n\t"                  \
    "str r2, [sp, #4]\n\t"                   \
    "add r10, r10, r10, lsl #1\n\t"          \
    "add r10, r2, r10\n\t"                   \
    "str r10, [sp, #24]\n\t"                 \
    "sub r12, r3, lr\n\t"                    \
    "sub r1, r1, r12, lsl #" #W_SHIFT "\n\t" \
    "mov r3, lr\n\t"                         \
    "ldr r4, [r3, #-4]\n\t"                  \
    "ldr r7, [r3, #12]\n\t"                  \
    "b 7b\n"                                  \
    "8:\n\t"
#define FG_DSP_SHORT_NEXT_X_32 FG_DSP_SHORT_NEXT_X(384, 3)
#define FG_DSP_SHORT_NEXT_X_64 FG_DSP_SHORT_NEXT_X(768, 4)
#define FG_DSP_TILE_SHORT_32(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT(FG_DSP_SHORT_PASSES_32, FG_DSP_SHORT_NEXT_X_32, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_SHORT_64(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT(FG_DSP_SHORT_PASSES_64, FG_DSP_SHORT_NEXT_X_64, STAGE, FRAME, OUT_OF_LINE)
#endif
/* The relu's short loop two channel pairs a round (its stage FG_DSP_RELU_UNCHECKED_STAGE, the end checked once a
 * round): an odd count of pairs enters the round at its second pair (checked at 7, where the next tile comes back
 * to, FG_DSP_SHORT_NEXT_TILE having loaded its biases and left r12 the bytes of the tile's table). Per pair ~2.5
 * cycles fewer on the M4 timing (half a taken branch, the frame's end and its compare); for 4 and 8 pairs only,
 * whose two rounds stay within ~0.8 KB of code (16 pairs: 1.4 KB, past the 1 KB the L4R5's ART caches, which the
 * cycle estimate does not model). */
#define FG_DSP_TILE_SHORT_PAIRED(PASSES, NEXT_TILE, STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_ASM(                                                           \
        "ldm %[job], {" FRAME "}\n\t"                                          \
        "stm sp, {" FRAME "}\n\t"                                              \
        FG_DSP_SHORT_START                                                     \
        "ldr r11, [sp, #16]\n\t"                                               \
        "sub r12, r11, r3\n"                                                   \
        "7:\n\t"                                                               \
        "tst r12, #32\n\t"                                                     \
        "bne 6f\n"                                                             \
        "5:\n\t"                                                               \
        FG_DSP_SHORT_FIRST PASSES STAGE                                        \
        "6:\n\t"                                                               \
        FG_DSP_SHORT_FIRST PASSES STAGE                                        \
        "ldr r11, [sp, #16]\n\t"                                               \
        "cmp r3, r11\n\t"                                                      \
        "bne 5b\n\t"                                                           \
        NEXT_TILE                                                              \
        OUT_OF_LINE)
#define FG_DSP_TILE_SHORT_PAIRED_4(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT_PAIRED(FG_DSP_SHORT_PASSES_4, FG_DSP_SHORT_NEXT_TILE_4, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_SHORT_PAIRED_8(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT_PAIRED(FG_DSP_SHORT_PASSES_8, FG_DSP_SHORT_NEXT_TILE_8, STAGE, FRAME, OUT_OF_LINE)
#if FG_DSP_DEEP_SHORT_STORES
/* The M33's relu two channel pairs a round for 16, 32 and 64 pairs too: 1.4, 2.5 and 4.6 KB of code, inside the
 * U575's 8 KB ICACHE. */
#define FG_DSP_TILE_SHORT_PAIRED_16(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT_PAIRED(FG_DSP_SHORT_PASSES_16, FG_DSP_SHORT_NEXT_TILE_16, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_SHORT_PAIRED_32(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT_PAIRED(FG_DSP_SHORT_PASSES_32, FG_DSP_SHORT_NEXT_X_32, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_SHORT_PAIRED_64(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT_PAIRED(FG_DSP_SHORT_PASSES_64, FG_DSP_SHORT_NEXT_X_64, STAGE, FRAME, OUT_OF_LINE)
#endif
#endif
/* NEXT_TILE: the M4's and the M33's next tile (FG_DSP_SHORT_NEXT_TILE), the M7's nothing (a tile a call). */
#define FG_DSP_TILE_SHORT(PASSES, NEXT_TILE, STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_ASM(                                                    \
        "ldm %[job], {" FRAME "}\n\t"                                   \
        "stm sp, {" FRAME "}\n\t"                                       \
        FG_DSP_SHORT_START                                              \
        "7:\n\t"                                                        \
        FG_DSP_SHORT_FIRST                                              \
        PASSES                                                          \
        STAGE                                                           \
        "bne 7b\n\t"                                                    \
        NEXT_TILE                                                       \
        OUT_OF_LINE)
#if defined(FG_CORE_CORTEX_M7)
#define FG_DSP_SHORT_NEXT_TILE_4 ""
#define FG_DSP_SHORT_NEXT_TILE_8 ""
#endif
#define FG_DSP_SHORT_PASSES_4 FG_DSP_SHORT_PASS(1) FG_DSP_SHORT_PASS(2) FG_DSP_SHORT_LAST(3)
#define FG_DSP_SHORT_PASSES_8                                                                               \
    FG_DSP_SHORT_PASS(1) FG_DSP_SHORT_PASS(2) FG_DSP_SHORT_PASS(3) FG_DSP_SHORT_PASS(4) FG_DSP_SHORT_PASS(5)  \
    FG_DSP_SHORT_PASS(6) FG_DSP_SHORT_LAST(7)
#define FG_DSP_TILE_SHORT_4(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT(FG_DSP_SHORT_PASSES_4, FG_DSP_SHORT_NEXT_TILE_4, STAGE, FRAME, OUT_OF_LINE)
#define FG_DSP_TILE_SHORT_8(STAGE, FRAME, OUT_OF_LINE) \
    FG_DSP_TILE_SHORT(FG_DSP_SHORT_PASSES_8, FG_DSP_SHORT_NEXT_TILE_8, STAGE, FRAME, OUT_OF_LINE)

#define FG_DSP_SSAT6            \
    "ssat r4, #8, r4\n\t"       \
    "ssat r5, #8, r5\n\t"       \
    "ssat r6, #8, r6\n\t"       \
    "ssat r7, #8, r7\n\t"       \
    "ssat r8, #8, r8\n\t"       \
    "ssat r9, #8, r9\n\t"
/* The job's words the frame takes: all but the relu's low, high and full. */
#define FG_DSP_RELU_FRAME "r3, r4, r5, r6, r7, r8, r9"
#define FG_DSP_CLAMPING_FRAME "r3, r4, r5, r6, r7, r8, r9, r10, r11, r12"
/* The relu: the frame's end in r11 with out and stride, compared with the next pair's r3 before the stores. */
#define FG_DSP_RELU_AFTER_A "ldr r11, [sp, #16]\n\t"
#define FG_DSP_RELU_CLAMP FG_DSP_SSAT6 "cmp r3, r11\n\t" FG_DSP_PAIR_STORES("")
/* The relu's stage without the end's load and compare (FG_DSP_TILE_SHORT_PAIRED checks it once a round). */
#define FG_DSP_RELU_UNCHECKED_STAGE(OUT) FG_DSP_STAGE(OUT, "", FG_DSP_SSAT6 FG_DSP_PAIR_STORES(""), "")
#define FG_DSP_RELU_UNCHECKED_FRAME FG_DSP_RELU_FRAME
#define FG_DSP_RELU_UNCHECKED_OUT_OF_LINE ""
/* The clamping: the frame's full in r11 (checked before the second channel's outputs, which leave the flags; r11
 * their scratch after), one SSAT each when it is all of int8, else the clamp to the frame's low and high (r12, lr);
 * the end loaded with the stores, compared with a copy of the next pair's r3 (r12) after them. */
#define FG_DSP_CLAMPING_AFTER_A "ldr r11, [sp, #36]\n\tcmp r11, #0\n\t"
#define FG_DSP_CLAMPING_CLAMP                                     \
    "beq 2f\n\t"                                                  \
    FG_DSP_SSAT6                                                  \
    "3:\n\t"                                                     \
    "mov r12, r3\n\t"                                            \
    FG_DSP_PAIR_STORES("ldr lr, [sp, #16]\n\t")
/* Out of line, past the exit: the clamp to the frame's low and high (r12, lr), back to the stores. */
#define FG_DSP_CLAMPING_OUT_OF_LINE                               \
    "b 6f\n"                                                      \
    "2:\n\t"                                                     \
    "ldr r12, [sp, #28]\n\t"                                     \
    "ldr lr, [sp, #32]\n\t"                                      \
    FG_DSP_CLAMP("r4") FG_DSP_CLAMP("r5") FG_DSP_CLAMP("r6")     \
    FG_DSP_CLAMP("r7") FG_DSP_CLAMP("r8") FG_DSP_CLAMP("r9")     \
    "b 3b\n"                                                      \
    "6:\n\t"
#define FG_DSP_CLAMPING_END_CHECK "cmp r12, lr\n\t"

/* A function `name`(x, w, job) running LOOP (FG_DSP_TILE_STORE or FG_DSP_TILE_SHORT_*) with OUT and the clamp's
 * KIND (RELU or CLAMPING); FG_DSP_TILE_JOB_FUNCTION's job a JOB (a kernel's own, its frame words where the stages read
 * fg_dsp_job's). */
#define FG_DSP_TILE_JOB_FUNCTION(name, JOB, LOOP, OUT, KIND)                                           \
    __attribute__((noinline)) void name(const uint32_t *x, const uint32_t *w, const JOB *job) {         \
        register const uint32_t *rx __asm__("r0") = x;                                                 \
        register const uint32_t *rw __asm__("r1") = w;                                                 \
        register const JOB *rj __asm__("r2") = job;                                                    \
        uint32_t frame[sizeof(JOB) / 4];                                                               \
        LOOP(FG_DSP_##KIND##_STAGE(OUT), FG_DSP_##KIND##_FRAME, FG_DSP_##KIND##_OUT_OF_LINE);          \
    }
#define FG_DSP_TILE_LOOP_FUNCTION(name, LOOP, OUT, KIND) FG_DSP_TILE_JOB_FUNCTION(name, fg_dsp_job, LOOP, OUT, KIND)
#define FG_DSP_TILE_STORE_FUNCTION(name, OUT, KIND) FG_DSP_TILE_LOOP_FUNCTION(name, FG_DSP_TILE_STORE, OUT, KIND)
#define FG_DSP_RELU_OUT_OF_LINE ""
/* The stages' first load: the channel pair's table from the frame (empty in the short stores: the M7's last pass
 * issues it, the others' keep r3 at the table). */
#define FG_DSP_STAGE_CH "ldr r3, [sp, #0]\n\t"
#if defined(FG_CORE_CORTEX_M7)
/* The M7's clamping stage: the table's words by single LDRs, each output's v + (v >> 31) + offset (the sum of
 * FG_DSP_NARROW_DOUBLED in another order, no scratch register) and shift interleaved, the frame's full checked (the
 * clamp out of line, back to 3 where the SSATs leave its outputs as they are), then the SSATs, the stores and the end
 * check: 22 + 11 cycles in llvm-mca's cortex-m7 model (hill-climbed), against 31 + 18. Doubled accumulators only (every
 * tile store's: the generator doubles a narrow channel's weights and bias), so no LSL before the SMMULR. */
#define FG_DSP_CLAMPING_STAGE_M7                       \
    FG_DSP_STAGE_CH                                    \
    "ldr r12, [r3, #16]\n\t"                           \
    "smmulr r7, r7, r12\n\t"                           \
    "ldr r10, [r3, #8]\n\t"                            \
    "smmulr r8, r8, r12\n\t"                           \
    "ldr r0, [r3]\n\t"                                 \
    "smmulr r9, r9, r12\n\t"                           \
    "smmulr r4, r4, r0\n\t"                            \
    "ldr r2, [r3, #4]\n\t"                             \
    "add r7, r7, r7, asr #31\n\t"                      \
    "smmulr r5, r5, r0\n\t"                            \
    "ldr lr, [r3, #20]\n\t"                            \
    "add r8, r8, r8, asr #31\n\t"                      \
    "add r4, r4, r4, asr #31\n\t"                      \
    "smmulr r6, r6, r0\n\t"                            \
    "add r4, r4, r2\n\t"                               \
    "ldr r11, [r3, #24]\n\t"                           \
    "ldr r0, [sp, #36]\n\t"                            \
    "add r9, r9, r9, asr #31\n\t"                      \
    "add r6, r6, r6, asr #31\n\t"                      \
    "add r9, r9, lr\n\t"                               \
    "add r5, r5, r5, asr #31\n\t"                      \
    "cmp r0, #0\n\t"                                   \
    "add r5, r5, r2\n\t"                               \
    "add r7, r7, lr\n\t"                               \
    "add r6, r6, r2\n\t"                               \
    "asr r4, r4, r10\n\t"                              \
    "add r8, r8, lr\n\t"                               \
    "asr r6, r6, r10\n\t"                              \
    "asr r5, r5, r10\n\t"                              \
    "ldr r10, [sp, #8]\n\t"                            \
    "add r3, r3, #32\n\t"                              \
    "asr r9, r9, r11\n\t"                              \
    "asr r8, r8, r11\n\t"                              \
    "ldr r2, [sp, #4]\n\t"                             \
    "asr r7, r7, r11\n\t"                              \
    "beq 2f\n"                                         \
    "3:\n\t"                                           \
    "add r11, r2, r10, lsl #1\n\t"                     \
    "add r10, r2, r10\n\t"                             \
    "ssat r4, #8, r4\n\t"                              \
    "str r3, [sp, #0]\n\t"                             \
    "ssat r7, #8, r7\n\t"                              \
    "strb r4, [r2]\n\t"                                \
    "ssat r6, #8, r6\n\t"                              \
    "strb r7, [r2, #1]\n\t"                            \
    "ssat r5, #8, r5\n\t"                              \
    "ssat r8, #8, r8\n\t"                              \
    "strb r5, [r10]\n\t"                               \
    "ssat r9, #8, r9\n\t"                              \
    "strb r8, [r10, #1]\n\t"                           \
    "strb r6, [r11]\n\t"                               \
    "add r2, r2, #2\n\t"                               \
    "ldr lr, [sp, #16]\n\t"                            \
    "cmp r3, lr\n\t"                                   \
    "strb r9, [r11, #1]\n\t"                           \
    "str r2, [sp, #4]\n\t"
#define FG_DSP_CLAMPING_STAGE(OUT) FG_DSP_CLAMPING_STAGE_M7
/* The M7's relu stage: channel A's multiplier and offset and the frame's out and stride by LDRD (B's words by single
 * LDRs), the six outputs' SMMLAR, ASR, SSAT interleaved, the stores at offsets of out (1 and 2 strides: r10, r10
 * lsl 1) with out moved on by each channel's first, the next pair's loads left to FG_DSP_FIRST_PAIR: 24 cycles in
 * llvm-mca's cortex-m7 model (hill-climbed), against 39; 35 instructions, against 41 with single loads and rows'
 * pointers added (the same cycles; B's words by LDRD too: 25). Doubled accumulators only, as the clamping stage's. */
#define FG_DSP_RELU_STAGE_M7                     \
    FG_DSP_STAGE_CH                              \
    "ldr r11, [r3, #24]\n\t"                     \
    "ldr r12, [r3, #16]\n\t"                     \
    "ldr r10, [r3, #8]\n\t"                      \
    "ldr lr, [r3, #20]\n\t"                      \
    "ldrd r0, r2, [r3]\n\t"                      \
    "add r3, r3, #32\n\t"                        \
    "smmlar r8, r8, r12, lr\n\t"                 \
    "smmlar r4, r4, r0, r2\n\t"                  \
    "str r3, [sp]\n\t"                           \
    "asr r8, r8, r11\n\t"                        \
    "smmlar r9, r9, r12, lr\n\t"                 \
    "ssat r8, #8, r8\n\t"                        \
    "smmlar r6, r6, r0, r2\n\t"                  \
    "asr r4, r4, r10\n\t"                        \
    "smmlar r5, r5, r0, r2\n\t"                  \
    "asr r6, r6, r10\n\t"                        \
    "smmlar r7, r7, r12, lr\n\t"                 \
    "asr r5, r5, r10\n\t"                        \
    "ldr r12, [sp, #16]\n\t"                     \
    "ldrd r2, r10, [sp, #4]\n\t"                 \
    "ssat r5, #8, r5\n\t"                        \
    "ssat r6, #8, r6\n\t"                        \
    "strb r5, [r2, r10]\n\t"                     \
    "ssat r4, #8, r4\n\t"                        \
    "strb r6, [r2, r10, lsl #1]\n\t"             \
    "cmp r3, r12\n\t"                            \
    "asr r9, r9, r11\n\t"                        \
    "strb r4, [r2], #1\n\t"                      \
    "asr r7, r7, r11\n\t"                        \
    "strb r8, [r2, r10]\n\t"                     \
    "ssat r9, #8, r9\n\t"                        \
    "ssat r7, #8, r7\n\t"                        \
    "strb r9, [r2, r10, lsl #1]\n\t"             \
    "strb r7, [r2], #1\n\t"                      \
    "str r2, [sp, #4]\n\t"
#define FG_DSP_RELU_STAGE(OUT) FG_DSP_RELU_STAGE_M7
#else
#define FG_DSP_RELU_STAGE(OUT) FG_DSP_STAGE(OUT, FG_DSP_RELU_AFTER_A, FG_DSP_RELU_CLAMP, "")
#define FG_DSP_CLAMPING_STAGE(OUT) \
    FG_DSP_STAGE(OUT, FG_DSP_CLAMPING_AFTER_A, FG_DSP_CLAMPING_CLAMP, FG_DSP_CLAMPING_END_CHECK)
#endif

/* The tile-store functions are defined by runtime_c/kernels/support/dsp_tile_store.c with the macros above, one
 * copy per firmware (fg/isa/dsp_tile_store.h declares them); that file keeps the macros defined. */
#if !defined(FG_DSP_TILE_STORES)
#undef FG_DSP_TILE_STORE_FUNCTION
#undef FG_DSP_TILE_LOOP_FUNCTION
#undef FG_DSP_TILE_JOB_FUNCTION
#undef FG_DSP_TILE_ASM
#undef FG_DSP_TILE_SHORT
#undef FG_DSP_TILE_SHORT_4
#undef FG_DSP_TILE_SHORT_8
#undef FG_DSP_BIAS_PAIR_M7
#undef FG_DSP_BIAS_PAIR
#undef FG_DSP_PAIR_NEXT
#undef FG_DSP_STAGE_CH
#undef FG_DSP_SHORT_START
#undef FG_DSP_SHORT_FIRST
#undef FG_DSP_SHORT_PASS
#undef FG_DSP_SHORT_LAST
#undef FG_DSP_SHORT_EXTEND_WORD
#undef FG_DSP_SHORT_NEXT_TILE
#undef FG_DSP_SHORT_NEXT_TILE_4
#undef FG_DSP_SHORT_NEXT_TILE_8
#undef FG_DSP_SHORT_NEXT_TILE_16
#undef FG_DSP_TILE_SHORT_16
#undef FG_DSP_TILE_SHORT_32
#undef FG_DSP_TILE_SHORT_64
#undef FG_DSP_SHORT_NEXT_X
#undef FG_DSP_SHORT_NEXT_X_32
#undef FG_DSP_SHORT_NEXT_X_64
#undef FG_DSP_SHORT_PASSES_8_MORE
#undef FG_DSP_SHORT_PASSES_32
#undef FG_DSP_SHORT_PASSES_64
#undef FG_DSP_SHORT_PASSES_4
#undef FG_DSP_SHORT_PASSES_8
#undef FG_DSP_SHORT_PASSES_16
#undef FG_DSP_TILE_SHORT_PAIRED
#undef FG_DSP_TILE_SHORT_PAIRED_4
#undef FG_DSP_TILE_SHORT_PAIRED_8
#undef FG_DSP_TILE_SHORT_PAIRED_16
#undef FG_DSP_TILE_SHORT_PAIRED_32
#undef FG_DSP_TILE_SHORT_PAIRED_64
#undef FG_DSP_RELU_UNCHECKED_STAGE
#undef FG_DSP_RELU_UNCHECKED_FRAME
#undef FG_DSP_RELU_UNCHECKED_OUT_OF_LINE
#undef FG_DSP_TILE_END_M7
#undef FG_DSP_FIRST_PAIR
#undef FG_DSP_PAIR_STORES
#undef FG_DSP_PAIR_CH_STORE
#undef FG_DSP_SSAT6
#undef FG_DSP_RELU_AFTER_A
#undef FG_DSP_RELU_FRAME
#undef FG_DSP_CLAMPING_FRAME
#undef FG_DSP_RELU_CLAMP
#undef FG_DSP_RELU_STAGE
#undef FG_DSP_RELU_STAGE_M7
#undef FG_DSP_CLAMPING_STAGE
#undef FG_DSP_CLAMPING_STAGE_M7
#undef FG_DSP_STAGE
#undef FG_DSP_START
#undef FG_DSP_TEXT
#undef FG_DSP_TEXT_
#undef FG_DSP_CLAMPING_AFTER_A
#undef FG_DSP_CLAMPING_CLAMP
#undef FG_DSP_CLAMPING_END_CHECK
#undef FG_DSP_CLAMPING_OUT_OF_LINE
#undef FG_DSP_RELU_OUT_OF_LINE
#undef FG_DSP_TILE_STORE
#undef FG_DSP_TILE_STORE_HOOKED
#undef FG_DSP_TILE_STORE_TILES
#undef FG_DSP_TILES_HEAD
#undef FG_DSP_TILES_NEXT
#undef FG_DSP_NARROW_DOUBLED
#undef FG_DSP_RELU_DOUBLED
#undef FG_DSP_TILE_ROUND
#undef FG_DSP_TILE_PAIRS_8
#undef FG_DSP_TILE_ROUND_PAIRS
#undef FG_DSP_ENTRY_ADDRESS
#undef FG_DSP_TILE_PASS_M7
#undef FG_DSP_TILE_HEAD_M7
#undef FG_DSP_TILE_LAST_M7
#undef FG_DSP_TILE_BLOCK
#undef FG_DSP_CLAMP
#undef FG_DSP_TILE_PAIR
#undef FG_DSP_TILE_PAIR_ON
#endif

#endif /* __ARM_FEATURE_DSP */
#endif /* FG_DSP_SUPPORT_H */
