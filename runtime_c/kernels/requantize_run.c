#include "fg/dot_s8.h"
#include "fg/requantize.h"

/* fg_multiply_by_quantized_multiplier, offset and clamp, spelled out branch-free for the loop below: bit-exact with
 * it (tests/test_fixedpoint_c.py) except for the multiplier INT32_MIN, which never occurs. */
FG_HOT_LOOP void fg_requantize_run_s8(const fg_requant_params *q, const uint32_t *acc, int32_t first, int32_t count,
                                      int8_t *output) {
    const int32_t step = q->per_channel ? 1 : 0;
    const int32_t *multiplier = q->multipliers + first * step, *shift = q->shifts + first * step;
    const int32_t output_offset = q->output_offset, low = q->activation_min, high = q->activation_max;
    for (int32_t k = 0; k < count; ++k, multiplier += step, shift += step) {
        const int32_t left = *shift & ~(*shift >> 31);  /* max(shift, 0) */
        const int32_t right = left - *shift;             /* max(-shift, 0) */
        const int64_t product = (int64_t)fg_shift_left_wrapping(fg_wrapped_i32(acc[k]), left) * *multiplier;
        const int32_t high_mul = (int32_t)((product + ((int64_t)1 << 30)) >> 31);
        const int32_t mask = (int32_t)((1u << right) - 1u);
        const int32_t threshold = (mask >> 1) + (int32_t)((uint32_t)high_mul >> 31);
        int32_t scaled = (high_mul >> right) + ((high_mul & mask) > threshold) + output_offset;
        scaled = scaled < low ? low : scaled;
        output[k] = (int8_t)(scaled > high ? high : scaled);
    }
}
