#include "fg/dot_s8.h"
#include "fg/requantize.h"

/* The fast output stage: fg_multiply_by_quantized_multiplier for a right shift r in [2, 31] (shift = -r) as one
 * 64-bit sum. With T = acc * multiplier + 2^30, TFLite's high product is floor(T / 2^31) and its rounding division
 * by 2^r adds 2^(r-1) minus one below zero; the floors compose, so the result is
 * (T + 2^(30+r) - 2^31 * [acc < 0]) >> (31 + r) (the test on acc instead of T differs only for T = 0, where both give
 * 0). The sum starts at words low = 2^30 + 2^31 * [acc < 0], high = 2^(r-2) - [acc < 0]: one SMLAL, then the high
 * word shifted right by r - 1 (|acc * multiplier| < 2^62 keeps the high word within 2^30 + 2^29). */
typedef struct {
    int32_t multiplier;
    int32_t high;   /* 2^(r-2) */
    int32_t shift;  /* r - 1 */
} fg_fast_channel;

/* The fast constants of one channel; 0 when its shift is not a right shift in [2, 31]. */
static inline int fg_fast_channel_of(int32_t multiplier, int32_t shift, fg_fast_channel *c) {
    const uint32_t right = (uint32_t)-shift;
    if (right - 2u > 29u) {
        return 0;
    }
    c->multiplier = multiplier;
    c->high = (int32_t)((1u << right) >> 2);
    c->shift = (int32_t)right - 1;
    return 1;
}

static inline int8_t fg_fast_output(uint32_t acc, const fg_fast_channel *c, int32_t offset) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t low, high, sign;
    __asm__("and %[s], %[a], #0x80000000\n\t"
            "orr %[lo], %[s], #0x40000000\n\t"
            "add %[hi], %[h0], %[a], asr #31\n\t"
            "smlal %[lo], %[hi], %[a], %[m]\n\t"
            "asr %[hi], %[hi], %[e]\n\t"
            "add %[hi], %[hi], %[z]\n\t"
            "ssat %[hi], #8, %[hi]"
            : [lo] "=&r"(low), [hi] "=&r"(high), [s] "=&r"(sign)
            : [a] "r"(acc), [m] "r"(c->multiplier), [h0] "r"(c->high), [e] "r"(c->shift), [z] "r"(offset));
    return (int8_t)high;
#else
    const int64_t below_zero = (int64_t)(acc >> 31);
    const int64_t start = (int64_t)c->high * 4294967296LL + 1073741824LL - below_zero * 2147483648LL;
    const int32_t high = (int32_t)((start + (int64_t)fg_wrapped_i32(acc) * c->multiplier) >> 32) >> c->shift;
    return (int8_t)fg_clamp_i32(high + offset, -128, 127);
#endif
}

/* One channel of one or two pixels by TFLite's arithmetic (a shift outside [-31, -2] or a narrower clamp). */
static void fg_requantize_slow(const fg_requant_params *q, const uint32_t *acc, int32_t channel, int8_t *out0,
                               int8_t *out1) {
    *out0 = fg_requantize_channel_s8(q, fg_wrapped_i32(acc[0]), channel);
    if (out1 != NULL) {
        *out1 = fg_requantize_channel_s8(q, fg_wrapped_i32(acc[FG_REQUANT_CHUNK]), channel);
    }
}

/* Channels outer: each channel's constants are derived once for both pixels. The fast path serves layers clamped to
 * the whole int8 range (no fused activation narrower than it); a channel it does not serve takes
 * fg_requantize_channel_s8. */
FG_HOT_LOOP void fg_requantize_pair_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                                       int8_t *out0, int8_t *out1) {
    const int32_t offset = q->output_offset;
    const int whole_range = q->activation_min == -128 && q->activation_max == 127;
    fg_fast_channel shared;
    if (!whole_range || (!q->per_channel && !fg_fast_channel_of(q->multipliers[0], q->shifts[0], &shared))) {
        for (int32_t k = 0; k < count; ++k) {
            fg_requantize_slow(q, acc + k, first + k, out0 + k, out1 != NULL ? out1 + k : NULL);
        }
        return;
    }
    if (!q->per_channel) {
        for (int32_t k = 0; k < count; ++k) {
            out0[k] = fg_fast_output(acc[k], &shared, offset);
            if (out1 != NULL) {
                out1[k] = fg_fast_output(acc[k + FG_REQUANT_CHUNK], &shared, offset);
            }
        }
        return;
    }
    const int32_t *multiplier = q->multipliers + first, *shift = q->shifts + first;
    for (int32_t k = 0; k < count; ++k) {
        fg_fast_channel c;
        if (!fg_fast_channel_of(multiplier[k], shift[k], &c)) {
            fg_requantize_slow(q, acc + k, first + k, out0 + k, out1 != NULL ? out1 + k : NULL);
            continue;
        }
        out0[k] = fg_fast_output(acc[k], &c, offset);
        if (out1 != NULL) {
            out1[k] = fg_fast_output(acc[k + FG_REQUANT_CHUNK], &c, offset);
        }
    }
}

FG_HOT_LOOP void fg_requantize_quad_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                                       int8_t *out0, int8_t *rest, int32_t rest_step) {
    if (q->activation_min != -128 || q->activation_max != 127) {
        fg_requantize_pair_s8(q, acc, first, count, out0, rest);
        fg_requantize_pair_s8(q, acc + 2 * FG_REQUANT_CHUNK, first, count, rest + rest_step, rest + 2 * rest_step);
        return;
    }
    const int32_t offset = q->output_offset, step = q->per_channel ? 1 : 0;
    const int32_t *multiplier = q->multipliers + first * step, *shift = q->shifts + first * step;
    for (int32_t k = 0; k < count; ++k, ++acc, ++out0, ++rest) {
        fg_fast_channel c;
        if (!fg_fast_channel_of(multiplier[k * step], shift[k * step], &c)) {
            fg_requantize_slow(q, acc, first + k, out0, rest);
            fg_requantize_slow(q, acc + 2 * FG_REQUANT_CHUNK, first + k, rest + rest_step, rest + 2 * rest_step);
            continue;
        }
        out0[0] = fg_fast_output(acc[0], &c, offset);
        rest[0] = fg_fast_output(acc[FG_REQUANT_CHUNK], &c, offset);
        rest[rest_step] = fg_fast_output(acc[2 * FG_REQUANT_CHUNK], &c, offset);
        rest[2 * rest_step] = fg_fast_output(acc[3 * FG_REQUANT_CHUNK], &c, offset);
    }
}

void fg_requantize_run_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                          int8_t *output) {
    fg_requantize_pair_s8(q, acc, first, count, output, NULL);
}
