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
#include "fg/support/hot_loop.h"
#include "fg/support/requantize_fast.h"
#include "fg/support/weights_s4.h"

#define FG_S4_GROUP 8

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

/* sums[k] = sum_{i < n} x[i] * (word i rotated and masked, k < 4), n >= 1; w advanced past the n words. Every
 * register is taken (eight for the sums), so the end of the run waits on the stack. */
static __attribute__((noinline)) const uint32_t *fg_s4_sums(const int8_t *x, int32_t n, const uint32_t *w,
                                                            int64_t sums[4]) {
    register const int8_t *rx __asm__("r0") = x;
    register int32_t rn __asm__("r1") = n;
    register const uint32_t *rw __asm__("r2") = w;
    register int64_t *rs __asm__("r3") = sums;
    __asm__ volatile(
        "push {r3}\n\t"
        "add r3, r0, r1\n\t"
        "push {r3}\n\t"
        "and r3, r1, #7\n\t"
        "movw r1, #0x000F\n\t"
        "movt r1, #0xF000\n\t"
        "movs r4, #0\n\t"
        "movs r5, #0\n\t"
        "movs r6, #0\n\t"
        "movs r7, #0\n\t"
        "mov r8, #0\n\t"
        "mov r9, #0\n\t"
        "mov r10, #0\n\t"
        "mov r11, #0\n\t"
        "tbb [pc, r3]\n"
        "5:\n\t"
        ".byte (1f - 5b) / 2, (18f - 5b) / 2, (17f - 5b) / 2, (16f - 5b) / 2\n\t"
        ".byte (15f - 5b) / 2, (14f - 5b) / 2, (13f - 5b) / 2, (12f - 5b) / 2\n\t"
        ".p2align 1\n"
        "1:\n\t" FG_S4_TAP "12:\n\t" FG_S4_TAP "13:\n\t" FG_S4_TAP "14:\n\t" FG_S4_TAP
        "15:\n\t" FG_S4_TAP "16:\n\t" FG_S4_TAP "17:\n\t" FG_S4_TAP "18:\n\t" FG_S4_TAP
        "ldr r3, [sp]\n\t"
        "cmp r0, r3\n\t"
        "bne 1b\n\t"
        "add sp, sp, #4\n\t"
        "pop {r3}\n\t"
        "stm r3, {r4-r11}\n\t"
        : "+r"(rx), "+r"(rn), "+r"(rw), "+r"(rs)
        :
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory");
    return rw;
}
#undef FG_S4_TAP
#else
static const uint32_t *fg_s4_sums(const int8_t *x, int32_t n, const uint32_t *w, int64_t sums[4]) {
    for (int32_t k = 0; k < 4; ++k) {
        sums[k] = 0;
    }
    for (int32_t i = 0; i < n; ++i, ++w) {
        for (int32_t k = 0; k < 4; ++k) {
            const uint32_t r = (uint32_t)(8 * k + 8) & 31u, rotated = r ? (*w >> r) | (*w << (32 - r)) : *w;
            sums[k] += (int64_t)x[i] * (int32_t)(rotated & 0xF000000Fu);
        }
    }
    return w;
}
#endif

/* The bytes of word v as x + 128 (0..255), even ones into *even's 16-bit lanes, odd ones into *odd's. */
static inline __attribute__((always_inline)) void fg_add_bytes(const int8_t *x, uint32_t *even, uint32_t *odd) {
    uint32_t v;
    __builtin_memcpy(&v, x, sizeof v);
    v ^= 0x80808080u;
    *even += v & 0x00FF00FFu;
    *odd += (v & 0xFF00FF00u) >> 8;
}

/* sum_{i < n} x[i], four words a pass (no carry between 16-bit lanes within 64 passes). */
static int32_t fg_sum_s8(const int8_t *x, int32_t n) {
    int32_t total = 0;
    const int8_t *const end = x + n;
    while (end - x >= 16) {
        const int8_t *const stop = end - x >= 1024 ? x + 1024 : x + ((end - x) & ~15);
        const int32_t bytes = (int32_t)(stop - x);
        uint32_t even = 0, odd = 0;
        for (; x != stop; x += 16) {
            fg_add_bytes(x, &even, &odd);
            fg_add_bytes(x + 4, &even, &odd);
            fg_add_bytes(x + 8, &even, &odd);
            fg_add_bytes(x + 12, &even, &odd);
        }
        total += (int32_t)((even & 0xFFFFu) + (even >> 16) + (odd & 0xFFFFu) + (odd >> 16)) - 128 * bytes;
    }
    for (; x != end; ++x) {
        total += *x;
    }
    return total;
}

/* The int8 outputs of acc[0 .. count), channels first .. first + count: the one-SMLAL output stage where the
 * channel's shift allows it (then clamped to the activation, which nests in the int8 range), else TFLite's. */
static void fg_s4_outputs(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                          int8_t *output) {
    const int32_t offset = q->output_offset, low = q->activation_min, high = q->activation_max;
    const int32_t step = q->per_channel ? 1 : 0;
    const int32_t *multiplier = q->multipliers + first * step, *shift = q->shifts + first * step;
    for (int32_t k = 0; k < count; ++k, multiplier += step, shift += step) {
        fg_fast_channel c;
        if (!fg_fast_channel_of(*multiplier, *shift, &c)) {
            output[k] = fg_requantize_channel_s8(q, fg_wrapped_i32(acc[k]), first + k);
            continue;
        }
        const int32_t t = fg_fast_output(acc[k], &c, offset);
        output[k] = (int8_t)(t < low ? low : t > high ? high : t);
    }
}

FG_HOT_LOOP void fg_s4_window_armv7m(const int8_t *x, int32_t taps, const void *packed, int32_t out_c,
                                     const int32_t *bias, const fg_requant_params *q, int8_t *output) {
    const uint32_t *w = packed;
    const uint32_t eight_x = 8u * (uint32_t)fg_sum_s8(x, taps);
    for (int32_t first = 0; first < out_c; first += FG_REQUANT_CHUNK) {
        const int32_t count = out_c - first < FG_REQUANT_CHUNK ? out_c - first : FG_REQUANT_CHUNK;
        uint32_t acc[FG_REQUANT_CHUNK];
        for (int32_t g = 0; g < count; g += FG_S4_GROUP) {
            int64_t sums[4];
            w = fg_s4_sums(x, taps, w, sums);
            for (int32_t k = 0; k < 4; ++k) {
                const int32_t low = (int32_t)((uint32_t)sums[k] << 4) >> 4;
                acc[g + 2 * k] = (uint32_t)((sums[k] - low) >> 28);
                acc[g + (2 * k + 3) % FG_S4_GROUP] = (uint32_t)low - eight_x;
            }
        }
        for (int32_t j = 0; j < count; ++j) {
            acc[j] += (uint32_t)bias[first + j];
        }
        fg_s4_outputs(q, acc, first, count, output + first);
    }
}
