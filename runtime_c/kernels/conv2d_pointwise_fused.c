#include "fg/conv2d.h"
#include "fg/paired_run.h"

#define FG_LOW_START (1 << 21)  /* each call's sums start here: the low field stays non-negative */
#define FG_LOW_FIELD 0x3FFFFFu

static inline uint32_t fg_low_field(int64_t s) {
    return (uint32_t)s & FG_LOW_FIELD;
}

static inline uint32_t fg_high_field(int64_t s) {
    return (uint32_t)(s >> 22);
}

/* Stores the output of channel *c for the sum `field` at *out; both move on by one. */
__attribute__((always_inline)) static inline void fg_fused_put(uint32_t field, const fg_fused_channel **c,
                                                               int32_t offset, int8_t **out) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t low, multiplier, high0, shift, high;
    __asm__ volatile("ldrd %[lo], %[m], [%[c]], #8\n\t"
            "ldrd %[h0], %[e], [%[c]], #8\n\t"
            "add %[a], %[a], %[lo]\n\t" FG_FAST_OUTPUT_ASM
            "strb %[hi], [%[o]], #1"
            : [a] "+r"(field), [c] "+r"(*c), [o] "+r"(*out), [lo] "=&r"(low), [m] "=&r"(multiplier),
              [h0] "=&r"(high0), [e] "=&r"(shift), [hi] "=&r"(high)
            : [z] "r"(offset)
            : "memory");
#else
    *(*out)++ = fg_fast_output(field + (uint32_t)(*c)->bias, &(*c)->fast, offset);
    ++*c;
#endif
}

/* The eight outputs of one group whose taps took a single call (its sums kept on the stack meanwhile). */
__attribute__((always_inline)) static inline void fg_fused_store8(const int64_t s[4], const fg_fused_channel **c, int32_t offset, int8_t **out) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        fg_fused_put(fg_low_field(s[k]), c, offset, out);
        fg_fused_put(fg_high_field(s[k]), c, offset, out);
    }
}

/* The general group: `depth` taps in calls of call_taps, the fields summed, `count` outputs stored. */
static void fg_fused_group(const int8_t *x, int32_t depth, int32_t call_taps, const int32_t **w,
                           const fg_fused_channel *c, int32_t offset, int32_t count, int8_t *out) {
    uint32_t acc[FG_PAIRED_CHANNELS] = {0};
    for (int32_t t = 0; t < depth; t += call_taps) {
        const int32_t taps = depth - t < call_taps ? depth - t : call_taps;
        int64_t s[4];
        s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
        fg_paired_run(x + t, x + t + taps, w, s);
        for (int k = 0; k < 4; ++k) {
            acc[2 * k] += fg_low_field(s[k]);
            acc[2 * k + 1] += fg_high_field(s[k]);
        }
    }
    for (int32_t j = 0; j < count; ++j) {
        fg_fused_put(acc[j], &c, offset, &out);
    }
}

FG_HOT_LOOP void fg_conv2d_pointwise_fused_s8(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                              int8_t *output) {
    const int32_t pixels = p->batches * p->out_h * p->out_w, depth = p->in_c, out_c = p->out_c;
    const int32_t call_taps = p->blocked.call_taps, offset = p->requant.output_offset;
    const int32_t *const weights = p->blocked.paired;
    const fg_fused_channel *const constants = (const fg_fused_channel *)p->packed;
    /* the groups whose taps take one call and whose eight outputs are all stored */
    const int32_t whole = call_taps >= depth ? out_c / FG_PAIRED_CHANNELS : 0;
    (void)filter;
    /* Output pixel i is stored group by group while input pixel i is read: the planner lets it overlap only the
     * inputs below pixel i (ops/overlap.py). */
    for (int32_t i = 0; i < pixels; ++i, input += depth) {
        const int32_t *w = weights;
        const fg_fused_channel *c = constants;
        for (int32_t g = 0; g < whole; ++g) {
            int64_t s[4];
            s[0] = s[1] = s[2] = s[3] = FG_LOW_START;
            fg_paired_run(input, input + depth, &w, s);
            fg_fused_store8(s, &c, offset, &output);
        }
        for (int32_t oc = whole * FG_PAIRED_CHANNELS; oc < out_c; oc += FG_PAIRED_CHANNELS, c += FG_PAIRED_CHANNELS) {
            const int32_t count = out_c - oc < FG_PAIRED_CHANNELS ? out_c - oc : FG_PAIRED_CHANNELS;
            fg_fused_group(input, depth, call_taps, &w, c, offset, count, output);
            output += count;
        }
    }
}
