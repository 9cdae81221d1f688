/* FULLY_CONNECTED on Armv6-M with two outputs per MULS (fg/isa/armv6m.h, runtime_c/kernels/support/pairs_armv6m.c):
 * each row widened to int32 on the stack, then every pair of outputs. */
#include "fg/isa/armv6m.h"
#include "fg/support/hot_loop.h"
#include "fg/variants_armv6m.h"

FG_HOT_LOOP void fg_fully_connected_paired_armv6m(const fg_fully_connected_params *p, const int8_t *input,
                                                  const int8_t *weights, int8_t *output) {
    (void)weights;
    const int32_t depth = p->accum_depth, out_depth = p->out_depth, padded = (depth + 15) & ~15;
    const fg_requant_params requant = p->requant;
    int32_t x[padded]; /* its bytes the call's run-time stack (the generator) */
    for (int32_t b = 0; b < p->batches; ++b, input += depth, output += out_depth) {
        fg_armv6m_widen(x, input, depth, padded);
        fg_armv6m_paired_outputs(x, p->packed, out_depth, &requant, output);
    }
}
