/* FULLY_CONNECTED on Armv6-M (fg/isa/armv6m.h): each batch row through every group of eight outputs; the
 * weights in params->packed as fg_armv6m_window_s8 reads them. */
#include "fg/isa/armv6m.h"
#include "fg/fully_connected.h"
#include "fg/support/window_run.h"

void fg_fully_connected_armv6m(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                               int8_t *output) {
    (void)weights;
    fg_fully_connected_rows(p, input, output, fg_armv6m_window_s8);
}

/* fg_fully_connected_s4 (4-bit weights), the weights as fg_armv6m_window_s4 reads them. */
void fg_fully_connected_s4_armv6m(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                                  int8_t *output) {
    (void)weights;
    fg_fully_connected_rows(p, input, output, fg_armv6m_window_s4);
}
