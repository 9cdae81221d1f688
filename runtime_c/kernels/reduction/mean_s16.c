#include "fg/mean.h"

void fg_mean_s16(const fg_mean_params *params, const int16_t *input, int16_t *output) {
    fg_mean_reduce(params, input, output, sizeof(int16_t));
}
