/* The tabulated path of int8 ADD and SUB: each input's rescaled value depends on its int8 value only, so above
 * FG_BROADCAST_TABLE_MIN_OUTPUTS outputs the 256 values of each input are tabulated once per call (on the stack) and
 * the output stage takes the one-SMLAL path (fg/support/requantize_fast.h). SUB is ADD with the second table negated: TFLite's
 * difference of the rescaled inputs is the sum with the second one's negation, exactly. */
#ifndef FG_ADD_TABULATED_H
#define FG_ADD_TABULATED_H

#include <stdint.h>

#include "fg/add.h"
#include "fg/support/broadcast.h"
#include "fg/support/hot_loop.h"
#include "fg/support/fixedpoint.h"
#include "fg/support/requantize_fast.h"

typedef struct {
    int32_t scaled1[256], scaled2[256];  /* indexed by the input value + 128 */
    fg_fast_channel output;
    int32_t output_offset, activation_min, activation_max;
} fg_add_tables;

FG_HOT_LOOP static void fg_add_row_tabulated(const void *context, const void *input1, int32_t step1,
                                             const void *input2, int32_t step2, void *output, int32_t n) {
    const fg_add_tables *t = (const fg_add_tables *)context;
    const int8_t *in1 = (const int8_t *)input1, *in2 = (const int8_t *)input2;
    int8_t *out = (int8_t *)output;
    const int32_t *scaled1 = t->scaled1 + 128, *scaled2 = t->scaled2 + 128;
    const fg_fast_channel stage = t->output;
    const int32_t offset = t->output_offset, low = t->activation_min, high = t->activation_max;
    if (step1 == 1 && step2 == 1 && low == -128 && high == 127) {  /* the common case: no broadcast, no clamp */
        for (const int8_t *const end = in1 + n; in1 < end;) {
            *out++ = fg_fast_output((uint32_t)(scaled1[*in1++] + scaled2[*in2++]), &stage, offset);
        }
        return;
    }
    for (int32_t i = 0; i < n; ++i, in1 += step1, in2 += step2) {
        const int32_t sum = scaled1[*in1] + scaled2[*in2];
        out[i] = (int8_t)fg_clamp_i32(fg_fast_output((uint32_t)sum, &stage, offset), low, high);
    }
}

/* Runs ADD (sign2 = 1) or SUB (sign2 = -1) through the tables and returns 1, or returns 0 when the call is too
 * small for tables to pay or the output shift is not one the fast stage takes. */
static inline int fg_add_tabulated_s8(const fg_add_params *params, int32_t sign2, const int8_t *input1,
                                      const int8_t *input2, int8_t *output) {
    fg_add_tables tables;
    if (fg_broadcast_outputs(&params->shape) < FG_BROADCAST_TABLE_MIN_OUTPUTS
        || !fg_fast_channel_of(params->output_multiplier, params->output_shift, &tables.output)) {
        return 0;
    }
    const fg_add_inputs inputs = fg_add_inputs_of(params);
    for (int32_t v = -128; v < 128; ++v) {
        const fg_add_pair scaled = fg_add_rescale_pair(&inputs, v, v);
        tables.scaled1[v + 128] = scaled.first;
        tables.scaled2[v + 128] = sign2 * scaled.second;
    }
    tables.output_offset = params->output_offset;
    tables.activation_min = params->activation_min;
    tables.activation_max = params->activation_max;
    fg_broadcast_binary(&params->shape, sizeof(int8_t), &tables, input1, input2, output, fg_add_row_tabulated);
    return 1;
}

#endif /* FG_ADD_TABULATED_H */
