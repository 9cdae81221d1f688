#include "fg/rsqrt_s16.h"

#include "fg/support/fixedpoint.h"
#include "fg/support/inv_sqrt.h"

#define FG_RSQRT_HEADROOM 20 /* TFLM's kShift: 1/sqrt(x) is kept as an integer scaled by 2^20 */

void fg_rsqrt_s16(const fg_rsqrt_s16_params *params, const int16_t *input, int16_t *output) {
    const fg_rsqrt_s16_params p = *params;
    for (int32_t i = 0; i < p.size; ++i) {
        const int32_t value = input[i];
        if (value <= 0) { /* TFLM: the int16 maximum at 0; below 0 it fails the invocation */
            output[i] = INT16_MAX;
            continue;
        }
        int32_t inv_multiplier;
        int inv_shift;
        fg_inv_sqrt_multiplier(value, &inv_multiplier, &inv_shift);
        const int32_t inv_sqrt =
            fg_multiply_by_quantized_multiplier(1, inv_multiplier, inv_shift + FG_RSQRT_HEADROOM);
        output[i] = fg_saturate_s16(fg_multiply_by_quantized_multiplier(inv_sqrt, p.multiplier,
                                                                        p.shift - FG_RSQRT_HEADROOM));
    }
}
