#include "fg/arg_max.h"

#include "fg/hot_loop.h"

/* The index of the first greatest of `count` values `stride` apart (compared after `^ flip`). */
static inline int32_t first_best(const int8_t *values, int32_t count, int32_t stride, int32_t flip) {
    int32_t best = *values ^ flip, best_index = 0;
    for (int32_t k = 1; k < count; ++k) {
        const int32_t value = values[k * stride] ^ flip;
        if (value > best) {
            best = value;
            best_index = k;
        }
    }
    return best_index;
}

static inline void consider(int32_t value, int32_t index, int32_t *best, int32_t *best_index) {
    if (value > *best) {
        *best = value;
        *best_index = index;
    }
}

/* The same over contiguous values (the axis is the innermost one), four at a time: each compare updates the best
 * and its index under one IT block, and the loop's own count, compare and branch are shared by four values. */
static inline int32_t first_best_contiguous(const int8_t *values, int32_t count, int32_t flip) {
    int32_t best = values[0] ^ flip, best_index = 0, k = 1;
    for (; k + 4 <= count; k += 4) {
        consider(values[k] ^ flip, k, &best, &best_index);
        consider(values[k + 1] ^ flip, k + 1, &best, &best_index);
        consider(values[k + 2] ^ flip, k + 2, &best, &best_index);
        consider(values[k + 3] ^ flip, k + 3, &best, &best_index);
    }
    for (; k < count; ++k) {
        consider(values[k] ^ flip, k, &best, &best_index);
    }
    return best_index;
}

FG_HOT_LOOP void fg_arg_max_s8(const fg_arg_max_params *params, const int8_t *input, int32_t *output) {
    const int32_t flip = params->flip, inner = params->inner, axis_size = params->axis_size;
    for (int32_t o = 0; o < params->outer; ++o, input += axis_size * inner) {
        if (inner == 1) {
            *output++ = flip ? first_best_contiguous(input, axis_size, -1) : first_best_contiguous(input, axis_size, 0);
            continue;
        }
        for (int32_t i = 0; i < inner; ++i) {
            *output++ = first_best(input + i, axis_size, inner, flip);
        }
    }
}
