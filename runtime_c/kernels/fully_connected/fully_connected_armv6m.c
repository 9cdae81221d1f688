/* FULLY_CONNECTED on Armv6-M (fg/isa/armv6m.h): each batch row through every group of eight outputs; the
 * weights in params->packed as fg_armv6m_window_s8 reads them. */
#include "fg/isa/armv6m.h"
#include "fg/fully_connected.h"

void fg_fully_connected_armv6m(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                               int8_t *output) {
    const int32_t depth = p->accum_depth, out_depth = p->out_depth;
    const fg_requant_params requant = p->requant;
    (void)weights;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + b * depth;
        fg_armv6m_window_s8(x, depth, p->packed, out_depth, p->folded_bias, &requant,
                            output + b * out_depth);
    }
}
