#include "fg/arg_max.h"

#include "fg/support/hot_loop.h"

static inline void consider(int32_t value, int32_t index, int32_t *best, int32_t *best_index) {
    if (value > *best) {
        *best = value;
        *best_index = index;
    }
}

/* The index of the first greatest of `count` contiguous values (the axis is the innermost one; compared after
 * `^ flip`), four at a time: each compare updates the best and its index under one IT block, and the loop's own
 * count, compare and branch are shared by four values. */
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

/* The index of the first greatest of `count` values `stride` apart (an outer axis), four at a time as above: the
 * three further offsets stay in registers and each value is one register-offset load. */
static inline int32_t first_best_strided(const int8_t *values, int32_t count, int32_t stride, int32_t flip) {
    int32_t best = values[0] ^ flip, best_index = 0, k = 1;
    const int8_t *v = values + stride;
    for (; k + 4 <= count; k += 4, v += 4 * stride) {
        consider(v[0] ^ flip, k, &best, &best_index);
        consider(v[stride] ^ flip, k + 1, &best, &best_index);
        consider(v[2 * stride] ^ flip, k + 2, &best, &best_index);
        consider(v[3 * stride] ^ flip, k + 3, &best, &best_index);
    }
    for (; k < count; ++k, v += stride) {
        consider(*v ^ flip, k, &best, &best_index);
    }
    return best_index;
}

/* One output per inner position of an [axis_size, inner] slab; a function of its own, so that GCC lays out the
 * contiguous path of fg_arg_max_s8 as it would without it. */
FG_HOT_LOOP __attribute__((noinline)) static int32_t *best_along_outer_axis(const int8_t *slab, int32_t axis_size,
                                                                           int32_t inner, int32_t flip,
                                                                           int32_t *output) {
    for (int32_t i = 0; i < inner; ++i) {
        *output++ = flip ? first_best_strided(slab + i, axis_size, inner, -1)
                         : first_best_strided(slab + i, axis_size, inner, 0);
    }
    return output;
}

FG_HOT_LOOP void fg_arg_max_s8(const fg_arg_max_params *params, const int8_t *input, int32_t *output) {
    const int32_t flip = params->flip, inner = params->inner, axis_size = params->axis_size;
    for (int32_t o = 0; o < params->outer; ++o, input += axis_size * inner) {
        if (inner == 1) {
            *output++ = flip ? first_best_contiguous(input, axis_size, -1) : first_best_contiguous(input, axis_size, 0);
            continue;
        }
        output = best_along_outer_axis(input, axis_size, inner, flip, output);
    }
}
