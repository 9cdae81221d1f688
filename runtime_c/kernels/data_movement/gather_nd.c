#include "fg/gather_nd.h"

#include <string.h>

#include "fg/support/hot_loop.h"
#include "fg/support/row_copy.h"

/* The input offset of the slice a row of indices picks, or -1 when an index is outside its dimension: one unsigned
 * compare per component tests 0 <= index < dim. */
static inline int32_t slice_offset(const int32_t *row, const int32_t *dim, const int32_t *stride,
                                   const int32_t *dims_end) {
    int32_t offset = 0;
    do {
        if ((uint32_t)*row >= (uint32_t)*dim) {
            return -1;
        }
        offset += *row++ * *stride++;
    } while (++dim != dims_end);
    return offset;
}

/* Inlined twice: `short_words` (a literal) selects, once per call rather than per slice, the copy of short slices of
 * whole words. */
static inline __attribute__((always_inline)) void gather_slices(const fg_gather_nd_params *params,
                                                                const int8_t *input, const int32_t *indices,
                                                                int8_t *output, int short_words) {
    const int32_t slice = params->slice_size;
    const int32_t depth = params->index_depth;
    const int32_t *const dims_end = params->dims + depth;
    const int32_t *const end = indices + params->num_slices * depth;
    for (; indices != end; indices += depth, output += slice) {
        const int32_t offset = slice_offset(indices, params->dims, params->strides, dims_end);
        if (offset < 0) {
            memset(output, 0, (size_t)slice);
        } else if (short_words) {
            fg_copy_words(output, input + offset, slice);
        } else {
            fg_copy_row(output, input + offset, slice);
        }
    }
}

FG_HOT_LOOP void fg_gather_nd_s8(const fg_gather_nd_params *params, const int8_t *input, const int32_t *indices,
                                 int8_t *output) {
    const int32_t slice = params->slice_size;
    if (slice % 4 == 0 && slice <= FG_SHORT_ROW_BYTES) {
        gather_slices(params, input, indices, output, 1);
    } else {
        gather_slices(params, input, indices, output, 0);
    }
}
