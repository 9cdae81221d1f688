#include "fg/support/dot_s8.h"
#include "fg/support/requantize.h"
#include "fg/support/requantize_fast.h"

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
