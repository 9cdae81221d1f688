/* NEG of float32, four elements per iteration: each group of four is read whole before it is written, so the kernel
 * also runs in place. */
#include "fg/neg.h"

#include "fg/support/hot_loop.h"

FG_HOT_LOOP void fg_neg_f32(const fg_neg_params *params, const float *input, float *output) {
    const int32_t size = params->size;
    int32_t i = 0;
    for (; i + 4 <= size; i += 4) {
        const float a = input[i], b = input[i + 1], c = input[i + 2], d = input[i + 3];
        output[i] = -a;
        output[i + 1] = -b;
        output[i + 2] = -c;
        output[i + 3] = -d;
    }
    for (; i < size; ++i) {
        output[i] = -input[i];
    }
}
