/* CONV_2D with 4-bit weights on Armv7-M: one output pixel at a time, its window as one run of taps (gathered at the
 * border, the zero point in the padding) through fg_s4_window_armv7m; params->packed the weights as it reads them. */
#include "fg/conv2d.h"
#include "fg/support/weights_s4.h"
#include "fg/support/window_run.h"

void fg_conv2d_s4_armv7m(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_conv_windows(p, input, output, fg_s4_window_armv7m);
}
