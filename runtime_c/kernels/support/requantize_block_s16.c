#include "fg/support/hot_loop.h"
#include "fg/support/requantize.h"

FG_HOT_LOOP int16_t *fg_requantize_block_s16(const fg_requant_params *q, const fg_wide_bias *w, const int64_t *acc,
                                             int32_t first, int32_t count, int16_t *output) {
    const int32_t step = q->per_channel ? 1 : 0;
    const int32_t *multipliers = q->multipliers + first * step, *shifts = q->shifts + first * step;
    const int64_t *bias = w->bias ? w->bias + first : 0;
    const int32_t offset = q->output_offset, low = q->activation_min, high = q->activation_max;
    for (int32_t k = 0; k < count; ++k, multipliers += step, shifts += step) {
        const int64_t sum = bias ? acc[k] + bias[k] : acc[k];
        const int32_t scaled = w->narrow
            ? fg_multiply_by_quantized_multiplier((int32_t)(uint32_t)(uint64_t)sum, *multipliers, (int)*shifts)
            : fg_scale_wide_s16(sum, *multipliers, (int)*shifts);
        *output++ = (int16_t)fg_clamp_i32(scaled + offset, low, high);
    }
    return output;
}
