#include "fg/dot_s8.h"
#include "fg/fully_connected.h"

void fg_fully_connected_folded_s8(const fg_fully_connected_params *p, const int8_t *input,
                                  const int8_t *weights, int8_t *output) {
    const int32_t depth = p->accum_depth, out_depth = p->out_depth;
    const fg_requant_params requant = p->requant;
    (void)weights;
    for (int32_t b = 0; b < p->batches; b += 2) {
        /* an odd last batch (or every batch, past FG_PAIR_MAX_OUT outputs) is computed twice */
        const int pair = b + 1 < p->batches && out_depth <= FG_PAIR_MAX_OUT;
        const int8_t *x0 = input + b * depth;
        const int8_t *x1 = pair ? x0 + depth : x0;
        fg_blocked_pair_s8(&p->blocked, &x0, &x1, 0, out_depth, p->folded_bias, &requant, output + b * out_depth,
                           pair ? output + (b + 1) * out_depth : NULL);
        b -= !pair;
    }
}
