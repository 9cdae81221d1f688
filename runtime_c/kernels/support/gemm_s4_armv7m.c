/* The 4-bit window of the Armv7-M CONV_2D and FULLY_CONNECTED variants (conv2d_s4_armv7m.c, fully_connected_s4_armv7m.c
 * and the DSP one; firmware_gen/ops/variants/armv7m_4bit.py lays the weights out).
 *
 * Eight output channels per pass, one word per tap: byte j the channel pair (2j, 2j + 1) as 16 w_2j + (w_2j+1 + 8)
 * (pair_4bit.pack_channel_pairs). Rotated right by 8k + 8 and masked with 0xF000000F, the word holds channel 2k's
 * two's-complement nibble in bits 28..31 and the next pair's low nibble u = w + 8 (0..15, channel (2k + 3) mod 8) in
 * bits 0..3: read as int32 it is exactly u + 2^28 w. One SMLAL of the input by it adds both products to a 64-bit sum
 * L + 2^28 S, |L| < 2^27 (at most 1920 a tap, FG_S4_ARMV7M_MAX_TAPS taps), so L is the sum's low 28 bits
 * sign-extended and S the rest, both exact. Per tap: LDR, LDRSB, 4 AND (rotated operand), 4 SMLAL for 8 products,
 * no lane ever split. L counts 8 sum x besides channel (2k + 3)'s sum, taken off once per window. */
#include <stddef.h>

#include "fg/support/hot_loop.h"
#include "fg/support/requantize_fast.h"
#include "fg/support/weights_s4.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

#define FG_S4_GROUP 8

/* The runs of taps of a window: count >= 1 runs of run >= 1 taps, run r at rows[r] (advanced as they are read), and
 * 8 times the sum of their inputs. */
typedef struct {
    const int8_t *const *rows;
    int32_t count;
    int32_t run;
    uint32_t eight_x;
} fg_s4_runs;

#if defined(__arm__) && defined(__thumb2__)
#define FG_S4_TAP                                  \
    "ldr r12, [r2], #4\n\t"                        \
    "ldrsb lr, [r0], #1\n\t"                       \
    "and r3, r1, r12, ror #8\n\t"                  \
    "smlal r4, r5, lr, r3\n\t"                     \
    "and r3, r1, r12, ror #16\n\t"                 \
    "smlal r6, r7, lr, r3\n\t"                     \
    "and r3, r1, r12, ror #24\n\t"                 \
    "smlal r8, r9, lr, r3\n\t"                     \
    "and r3, r1, r12\n\t"                          \
    "smlal r10, r11, lr, r3\n\t"
#define FG_S4_ENTRY(m) ".hword (" #m "f - 5b) / 2\n\t"
/* A 64-bit sum L + 2^28 S in (lo, hi) into S (lo) and L - 8 X (hi), r1 holding 8 X. */
#define FG_S4_SPLIT(lo, hi)                        \
    "sbfx r3, " lo ", #0, #28\n\t"               \
    "subs " lo ", " lo ", r3\n\t"                 \
    "sbc " hi ", " hi ", r3, asr #31\n\t"         \
    "lsr " lo ", " lo ", #28\n\t"                 \
    "orr " lo ", " lo ", " hi ", lsl #4\n\t"      \
    "sub " hi ", r3, r1\n\t"

/* sums[c] = channel c's dot product with the runs' taps, c < 8 (the 64-bit sums of each word rotated and masked,
 * split); returns w past the words. Every register is taken (eight for the sums): the end of the run and the runs
 * wait on the stack. 32 taps a pass, a run of 32n + m taps entering it at tap 32 - m. */
static __attribute__((noinline)) const uint32_t *fg_s4_sums(fg_s4_runs *runs, const uint32_t *w,
                                                            uint32_t sums[FG_S4_GROUP]) {
    register fg_s4_runs *rr __asm__("r0") = runs;
    register const uint32_t *rw __asm__("r2") = w;
    register uint32_t *rs __asm__("r3") = sums;
    __asm__ volatile(
        "push {r3}\n\t"
        "push {r0}\n\t"
        "sub sp, sp, #4\n\t"
        "movs r4, #0\n\t"
        "movs r5, #0\n\t"
        "movs r6, #0\n\t"
        "movs r7, #0\n\t"
        "mov r8, #0\n\t"
        "mov r9, #0\n\t"
        "mov r10, #0\n\t"
        "mov r11, #0\n"
        "6:\n\t"
        "ldr r3, [sp, #4]\n\t"
        "ldr r1, [r3]\n\t"
        "ldr r0, [r1], #4\n\t"
        "str r1, [r3]\n\t"
        "ldr r1, [r3, #8]\n\t"
        "add r12, r0, r1\n\t"
        "str r12, [sp]\n\t"
        "and r3, r1, #31\n\t"
        "movw r1, #0x000F\n\t"
        "movt r1, #0xF000\n\t"
        "tbh [pc, r3, lsl #1]\n"
        "5:\n\t"
        FG_S4_ENTRY(1) FG_S4_ENTRY(71) FG_S4_ENTRY(70) FG_S4_ENTRY(69) FG_S4_ENTRY(68) FG_S4_ENTRY(67)
        FG_S4_ENTRY(66) FG_S4_ENTRY(65) FG_S4_ENTRY(64) FG_S4_ENTRY(63) FG_S4_ENTRY(62) FG_S4_ENTRY(61)
        FG_S4_ENTRY(60) FG_S4_ENTRY(59) FG_S4_ENTRY(58) FG_S4_ENTRY(57) FG_S4_ENTRY(56) FG_S4_ENTRY(55)
        FG_S4_ENTRY(54) FG_S4_ENTRY(53) FG_S4_ENTRY(52) FG_S4_ENTRY(51) FG_S4_ENTRY(50) FG_S4_ENTRY(49)
        FG_S4_ENTRY(48) FG_S4_ENTRY(47) FG_S4_ENTRY(46) FG_S4_ENTRY(45) FG_S4_ENTRY(44) FG_S4_ENTRY(43)
        FG_S4_ENTRY(42) FG_S4_ENTRY(41)
        "1:\n\t" FG_S4_TAP "41:\n\t" FG_S4_TAP "42:\n\t" FG_S4_TAP "43:\n\t" FG_S4_TAP
        "44:\n\t" FG_S4_TAP "45:\n\t" FG_S4_TAP "46:\n\t" FG_S4_TAP "47:\n\t" FG_S4_TAP
        "48:\n\t" FG_S4_TAP "49:\n\t" FG_S4_TAP "50:\n\t" FG_S4_TAP "51:\n\t" FG_S4_TAP
        "52:\n\t" FG_S4_TAP "53:\n\t" FG_S4_TAP "54:\n\t" FG_S4_TAP "55:\n\t" FG_S4_TAP
        "56:\n\t" FG_S4_TAP "57:\n\t" FG_S4_TAP "58:\n\t" FG_S4_TAP "59:\n\t" FG_S4_TAP
        "60:\n\t" FG_S4_TAP "61:\n\t" FG_S4_TAP "62:\n\t" FG_S4_TAP "63:\n\t" FG_S4_TAP
        "64:\n\t" FG_S4_TAP "65:\n\t" FG_S4_TAP "66:\n\t" FG_S4_TAP "67:\n\t" FG_S4_TAP
        "68:\n\t" FG_S4_TAP "69:\n\t" FG_S4_TAP "70:\n\t" FG_S4_TAP "71:\n\t" FG_S4_TAP
        "ldr r3, [sp]\n\t"
        "cmp r0, r3\n\t"
        "bne 1b\n\t"
        "ldr r3, [sp, #4]\n\t"
        "ldr r1, [r3, #4]\n\t"
        "subs r1, r1, #1\n\t"
        "str r1, [r3, #4]\n\t"
        "bne 6b\n\t"
        "ldr r3, [sp, #4]\n\t"
        "ldr r1, [r3, #12]\n\t"
        FG_S4_SPLIT("r4", "r5") FG_S4_SPLIT("r6", "r7") FG_S4_SPLIT("r8", "r9") FG_S4_SPLIT("r10", "r11")
        "add sp, sp, #8\n\t"
        "pop {r3}\n\t"
        "str r4, [r3]\n\t"       /* channel 2k: S of sum k; channel (2k + 3) mod 8: its L */
        "str r11, [r3, #4]\n\t"
        "str r6, [r3, #8]\n\t"
        "str r5, [r3, #12]\n\t"
        "str r8, [r3, #16]\n\t"
        "str r7, [r3, #20]\n\t"
        "str r10, [r3, #24]\n\t"
        "str r9, [r3, #28]\n\t"
        : "+r"(rr), "+r"(rw), "+r"(rs)
        :
        : "r1", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory");
    return rw;
}
#undef FG_S4_TAP
#undef FG_S4_ENTRY
#undef FG_S4_SPLIT
#else
static const uint32_t *fg_s4_sums(fg_s4_runs *runs, const uint32_t *w, uint32_t sums[FG_S4_GROUP]) {
    int64_t total[4] = {0, 0, 0, 0};
    for (int32_t r = 0; r < runs->count; ++r) {
        const int8_t *x = runs->rows[r];
        for (int32_t i = 0; i < runs->run; ++i, ++w) {
            for (int32_t k = 0; k < 4; ++k) {
                const uint32_t turn = (uint32_t)(8 * k + 8) & 31u;
                const uint32_t rotated = turn ? (*w >> turn) | (*w << (32 - turn)) : *w;
                total[k] += (int64_t)x[i] * (int32_t)(rotated & 0xF000000Fu);
            }
        }
    }
    for (int32_t k = 0; k < 4; ++k) {
        const int32_t low = (int32_t)((uint32_t)total[k] << 4) >> 4;
        sums[2 * k] = (uint32_t)((total[k] - low) >> 28);
        sums[(2 * k + 3) % FG_S4_GROUP] = (uint32_t)low - runs->eight_x;
    }
    return w;
}
#endif

#if defined(__ARM_FEATURE_DSP)
/* sum_{i < n} x[i]: with the DSP extension, USADA8 adds a word's four x + 128 at once. */
int32_t fg_s4_sum_armv7m(const int8_t *x, int32_t n) {
    uint32_t biased = 0;
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint32_t v0, v1;
        __builtin_memcpy(&v0, x + i, sizeof v0);
        __builtin_memcpy(&v1, x + i + 4, sizeof v1);
        biased = __usada8(v0 ^ 0x80808080u, 0, biased);
        biased = __usada8(v1 ^ 0x80808080u, 0, biased);
    }
    int32_t total = (int32_t)biased - 128 * i;
    for (; i < n; ++i) {
        total += x[i];
    }
    return total;
}
#else
/* sum_{i < n} x[i]: sixteen bytes a pass as x + 128 (0..255) into the 16-bit lanes of two sums (even and odd bytes:
 * no carry between lanes within 64 passes), the rest one by one. */
int32_t fg_s4_sum_armv7m(const int8_t *x, int32_t n) {
    int32_t total = -128 * (n & ~15);
    const int8_t *const end = x + n;
    while (end - x >= 16) {
        const int8_t *const stop = end - x >= 1024 ? x + 1024 : x + ((end - x) & ~15);
        uint32_t even = 0, odd = 0;
#if defined(__arm__) && defined(__thumb2__)
        const uint32_t lanes = 0x00FF00FFu;
        uint32_t v0, v1, v2, v3, t;
        __asm__("1:\n\t"
                "ldr %[v0], [%[x]], #4\n\t"
                "ldr %[v1], [%[x]], #4\n\t"
                "ldr %[v2], [%[x]], #4\n\t"
                "ldr %[v3], [%[x]], #4\n\t"
                "eor %[v0], %[v0], #0x80808080\n\t"
                "and %[t], %[m], %[v0]\n\t"
                "add %[e], %[e], %[t]\n\t"
                "and %[t], %[m], %[v0], lsr #8\n\t"
                "add %[o], %[o], %[t]\n\t"
                "eor %[v1], %[v1], #0x80808080\n\t"
                "and %[t], %[m], %[v1]\n\t"
                "add %[e], %[e], %[t]\n\t"
                "and %[t], %[m], %[v1], lsr #8\n\t"
                "add %[o], %[o], %[t]\n\t"
                "eor %[v2], %[v2], #0x80808080\n\t"
                "and %[t], %[m], %[v2]\n\t"
                "add %[e], %[e], %[t]\n\t"
                "and %[t], %[m], %[v2], lsr #8\n\t"
                "add %[o], %[o], %[t]\n\t"
                "eor %[v3], %[v3], #0x80808080\n\t"
                "and %[t], %[m], %[v3]\n\t"
                "add %[e], %[e], %[t]\n\t"
                "and %[t], %[m], %[v3], lsr #8\n\t"
                "add %[o], %[o], %[t]\n\t"
                "cmp %[x], %[stop]\n\t"
                "bne 1b\n\t"
                : [x] "+r"(x), [e] "+r"(even), [o] "+r"(odd), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2),
                  [v3] "=&r"(v3), [t] "=&r"(t)
                : [m] "r"(lanes), [stop] "r"(stop)
                : "cc", "memory");
#else
        for (; x != stop; ++x) {
            const uint32_t biased = (uint32_t)(uint8_t)*x ^ 0x80u;
            *(((uintptr_t)x & 1) ? &odd : &even) += biased;
        }
#endif
        total += (int32_t)((even & 0xFFFFu) + (even >> 16) + (odd & 0xFFFFu) + (odd >> 16));
    }
    for (; x != end; ++x) {
        total += *x;
    }
    return total;
}
#endif

/* output[k] = fg_fast_output of acc[k] with channel c, clamped to [low, high] (nested in the int8 range). */
static inline __attribute__((always_inline)) int8_t fg_s4_fast_clamped(uint32_t acc, const fg_fast_channel *c,
                                                                       int32_t offset, int32_t low, int32_t high) {
    int32_t t = fg_fast_output(acc, c, offset);
    t = t < low ? low : t;
    return (int8_t)(t > high ? high : t);
}

#if defined(__arm__) && defined(__thumb2__)
/* The output in %[hi] clamped to [%[low], %[high]] and stored, then on to the next accumulator until %[end]. */
#define FG_S4_CLAMP_STORE_NEXT                 \
    "cmp %[hi], %[low]\n\t"                    \
    "it lt\n\t"                                \
    "movlt %[hi], %[low]\n\t"                  \
    "cmp %[hi], %[high]\n\t"                   \
    "it gt\n\t"                                \
    "movgt %[hi], %[high]\n\t"                 \
    "strb %[hi], [%[out]], #1\n\t"             \
    "cmp %[acc], %[end]\n\t"                   \
    "bne 1b\n\t"

/* fg_s4_fast_clamped of acc[0 .. count) (count >= 1) into output: with one channel's constants c for all (step 0),
 * or channel k's at c[k] (step 1). */
static __attribute__((noinline)) void fg_s4_fast_run(const uint32_t *acc, int32_t count, const fg_fast_channel *c,
                                                     int32_t step, int32_t offset, int32_t low, int32_t high,
                                                     int8_t *output) {
    const uint32_t *const end = acc + count;
    int32_t m = c->multiplier, h0 = c->high, e = c->shift, a, lo, hi;
    if (step == 0) {
        __asm__ volatile("1:\n\t"
                         "ldr %[a], [%[acc]], #4\n\t"
                         FG_FAST_OUTPUT_ASM FG_S4_CLAMP_STORE_NEXT
                         : [acc] "+r"(acc), [out] "+r"(output), [a] "=&r"(a), [lo] "=&r"(lo), [hi] "=&r"(hi)
                         : [m] "r"(m), [h0] "r"(h0), [e] "r"(e), [z] "r"(offset), [low] "r"(low), [high] "r"(high),
                           [end] "r"(end)
                         : "cc", "memory");
        return;
    }
    __asm__ volatile("1:\n\t"
                     "ldr %[a], [%[acc]], #4\n\t"
                     "ldrd %[m], %[h0], [%[c]], #12\n\t"
                     "ldr %[e], [%[c], #-4]\n\t"
                     FG_FAST_OUTPUT_ASM FG_S4_CLAMP_STORE_NEXT
                     : [acc] "+r"(acc), [out] "+r"(output), [c] "+r"(c), [m] "+r"(m), [h0] "+r"(h0), [e] "+r"(e),
                       [a] "=&r"(a), [lo] "=&r"(lo), [hi] "=&r"(hi)
                     : [z] "r"(offset), [low] "r"(low), [high] "r"(high), [end] "r"(end)
                     : "cc", "memory");
}
#undef FG_S4_CLAMP_STORE_NEXT
#else
static void fg_s4_fast_run(const uint32_t *acc, int32_t count, const fg_fast_channel *c, int32_t step,
                           int32_t offset, int32_t low, int32_t high, int8_t *output) {
    for (int32_t k = 0; k < count; ++k) {
        output[k] = fg_s4_fast_clamped(acc[k], c + k * step, offset, low, high);
    }
}
#endif

/* The int8 outputs of acc[0 .. count), channels first .. first + count: fast the channels' one-SMLAL constants
 * (fg_fast_channel) when every channel has them, else each channel's from its multiplier and shift, TFLite's output
 * stage where they do not serve. */
FG_HOT_LOOP __attribute__((noinline)) static void fg_s4_outputs(const fg_requant_params *q,
                                                                const fg_fast_channel *fast, const uint32_t *acc,
                                                                int32_t first, int32_t count, int8_t *output) {
    const int32_t offset = q->output_offset, low = q->activation_min, high = q->activation_max;
    const int32_t step = q->per_channel ? 1 : 0;
    if (fast != NULL) {
        fg_s4_fast_run(acc, count, fast + first * step, step, offset, low, high, output);
        return;
    }
    const int32_t *multiplier = q->multipliers + first * step, *shift = q->shifts + first * step;
    for (int32_t k = 0; k < count; ++k, multiplier += step, shift += step) {
        fg_fast_channel c;
        output[k] = fg_fast_channel_of(*multiplier, *shift, &c)
                        ? fg_s4_fast_clamped(acc[k], &c, offset, low, high)
                        : fg_requantize_channel_s8(q, fg_wrapped_i32(acc[k]), first + k);
    }
}

FG_HOT_LOOP void fg_s4_rows_armv7m(const int8_t *const rows[], int32_t count, int32_t run, int32_t sum_x,
                                   const void *packed, int32_t out_c, const int32_t *bias, const fg_requant_params *q,
                                   int8_t *output) {
    /* every channel fast, then the fg_fast_channel of each channel (of the layer if per tensor), then the words */
    const uint32_t *head = packed;
    const fg_fast_channel *fast = head[0] ? (const fg_fast_channel *)(head + 1) : NULL;
    const uint32_t *w = head + 1 + 3 * (q->per_channel ? (out_c + FG_S4_GROUP - 1) & ~(FG_S4_GROUP - 1) : 1);
    const uint32_t eight_x = 8u * (uint32_t)sum_x;
    for (int32_t first = 0; first < out_c; first += FG_REQUANT_CHUNK) {
        const int32_t chunk = out_c - first < FG_REQUANT_CHUNK ? out_c - first : FG_REQUANT_CHUNK;
        uint32_t acc[FG_REQUANT_CHUNK];
        for (int32_t g = 0; g < chunk; g += FG_S4_GROUP) {
            fg_s4_runs runs = {rows, count, run, eight_x};
            w = fg_s4_sums(&runs, w, acc + g);
        }
        for (int32_t j = 0; j < chunk; ++j) {
            acc[j] += (uint32_t)bias[first + j];
        }
        fg_s4_outputs(q, fast, acc, first, chunk, output + first);
    }
}

void fg_s4_window_armv7m(const int8_t *x, int32_t taps, const void *packed, int32_t out_c, const int32_t *bias,
                         const fg_requant_params *q, int8_t *output) {
    fg_s4_rows_armv7m(&x, 1, taps, fg_s4_sum_armv7m(x, taps), packed, out_c, bias, q, output);
}
