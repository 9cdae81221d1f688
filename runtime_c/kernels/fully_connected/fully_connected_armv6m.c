/* FULLY_CONNECTED on Armv6-M (fg/isa/armv6m.h): each batch row through every group of eight outputs; the
 * weights in params->packed as fg_armv6m_window_s8 reads them. */
#include "fg/isa/armv6m.h"
#include "fg/fully_connected.h"

static inline __attribute__((always_inline)) void fg_fully_connected_rows_armv6m(const fg_fully_connected_params *p,
                                                                                 const int8_t *input, int8_t *output,
                                                                                 fg_armv6m_window_fn *window) {
    const int32_t depth = p->accum_depth, out_depth = p->out_depth;
    const fg_requant_params requant = p->requant;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + b * depth;
        window(x, depth, p->packed, out_depth, p->folded_bias, &requant, output + b * out_depth);
    }
}

void fg_fully_connected_armv6m(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                               int8_t *output) {
    (void)weights;
    fg_fully_connected_rows_armv6m(p, input, output, fg_armv6m_window_s8);
}

/* fg_fully_connected_s4 (4-bit weights), the weights as fg_armv6m_window_s4 reads them. */
void fg_fully_connected_s4_armv6m(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                                  int8_t *output) {
    (void)weights;
    fg_fully_connected_rows_armv6m(p, input, output, fg_armv6m_window_s4);
}
