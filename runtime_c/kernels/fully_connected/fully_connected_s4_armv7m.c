/* FULLY_CONNECTED with 4-bit weights on Armv7-M: each batch row through fg_s4_window_armv7m; params->packed the
 * weights as it reads them. */
#include "fg/fully_connected.h"
#include "fg/support/weights_s4.h"
#include "fg/support/window_run.h"

void fg_fully_connected_s4_armv7m(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                                  int8_t *output) {
    (void)weights;
    fg_fully_connected_rows(p, input, output, fg_s4_window_armv7m);
}
