#include "fg/transpose.h"

#include <string.h>

#include "fg/support/hot_loop.h"
#include "fg/support/row_copy.h"

/* n bytes from source down to source - n + 1 (REVERSE_V2 along the innermost dimension): four at a time, the word
 * below source byte-reversed. */
static inline int8_t *copy_reversed(int8_t *output, const int8_t *source, int32_t n) {
    int8_t *const end = output + n;
    for (; end - output >= 4; output += 4, source -= 4) {
        uint32_t word;
        memcpy(&word, source - 3, 4);
        word = __builtin_bswap32(word);
        memcpy(output, &word, 4);
    }
    for (; output < end; --source) {
        *output++ = *source;
    }
    return output;
}

/* `inner` copies of one row (BROADCAST_TO's zero stride): a single byte is set, a longer row is written once and the
 * output then doubled onto itself (the source block lies before the destination, never overlapping it). */
static inline int8_t *repeat_row(int8_t *output, const int8_t *source, int32_t inner, int32_t row) {
    const int32_t total = inner * row;
    if (row == 1) {
        memset(output, *source, (size_t)total);
        return output + total;
    }
    fg_copy_row(output, source, row);
    for (int32_t filled = row; filled < total; filled += filled) {
        memcpy(output + filled, output, (size_t)(total - filled < filled ? total - filled : filled));
    }
    return output + total;
}

/* The walk of a gather whose innermost walked dimension has stride 0, kept out of fg_transpose_s8's loop (whose code
 * GCC would otherwise lay out worse for the other operators). */
static __attribute__((noinline)) void repeat_rows(const fg_transpose_params *params, const int8_t *input,
                                                  int8_t *output) {
    int32_t index[FG_MAX_RANK] = {0};
    const int32_t rank = params->rank;
    const int32_t inner = params->shape[rank - 1];
    int32_t offset = params->offset;
    for (int32_t r = 0; r < params->rows; r += inner) {
        output = repeat_row(output, input + offset, inner, params->row);
        offset = fg_nd_advance(rank - 1, params->shape, params->strides, index, offset);
    }
}

/* The innermost walked dimension is stepped here with its stride; fg_nd_advance only carries into the outer ones. */
FG_HOT_LOOP void fg_transpose_s8(const fg_transpose_params *params, const int8_t *input, int8_t *output) {
    int32_t index[FG_MAX_RANK] = {0};
    const int32_t rank = params->rank;
    const int32_t row = params->row;
    const int32_t inner = rank > 0 ? params->shape[rank - 1] : 1;
    const int32_t inner_stride = rank > 0 ? params->strides[rank - 1] : 0;
    if (rank > 0 && inner_stride == 0) {
        repeat_rows(params, input, output);
        return;
    }
    int32_t offset = params->offset;
    for (int32_t r = 0; r < params->rows; r += inner) {
        const int8_t *source = input + offset;
        if (row == 1 && inner_stride == -1) {
            output = copy_reversed(output, source, inner);
        } else if (row == 1) {
            for (int32_t k = 0; k < inner; ++k, source += inner_stride) {
                *output++ = *source;
            }
        } else if (row <= FG_SHORT_ROW_BYTES) {
            for (int32_t k = 0; k < inner; ++k, source += inner_stride, output += row) {
                fg_copy_short_row(output, source, row);
            }
        } else {
            for (int32_t k = 0; k < inner; ++k, source += inner_stride, output += row) {
                memcpy(output, source, (size_t)row);
            }
        }
        offset = fg_nd_advance(rank - 1, params->shape, params->strides, index, offset);
    }
}
