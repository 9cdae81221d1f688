#include "fg/dot_s8.h"
#include "fg/fully_connected.h"

void fg_fully_connected_folded_s8(const fg_fully_connected_params *p, const int8_t *input,
                                  const int8_t *weights, int8_t *output) {
    for (int32_t b = 0; b < p->batches; ++b) {
        fg_dense_row_s8(input + b * p->accum_depth, weights, p->accum_depth, p->out_depth, p->folded_bias,
                        &p->requant, output + b * p->out_depth);
    }
}
