#include "fg/mean.h"

void fg_mean_s8(const fg_mean_params *params, const int8_t *input, int8_t *output) {
    fg_mean_reduce(params, input, output, sizeof(int8_t));
}
