#include "fg/gather.h"

#include <string.h>

#include "fg/support/hot_loop.h"
#include "fg/support/row_copy.h"

/* A gather along the last axis moves single elements: by assignment, as a memcpy call per byte costs several times
 * the byte. */
FG_HOT_LOOP static void gather_elements(const int8_t *slab, int32_t axis_size, const int32_t *indices,
                                        int32_t num_indices, int8_t *output) {
    for (const int32_t *const end = indices + num_indices; indices < end;) {
        const uint32_t index = (uint32_t)*indices++;
        *output++ = index < (uint32_t)axis_size ? slab[index] : 0;  /* 0 <= index < axis_size */
    }
}

FG_HOT_LOOP void fg_gather_s8(const fg_gather_params *params, const int8_t *input, const int32_t *indices,
                              int8_t *output) {
    const size_t inner = (size_t)params->inner;
    for (int32_t b = 0; b < params->batches; ++b) {
        const int32_t *batch_indices = indices + (size_t)b * (size_t)params->num_indices;
        for (int32_t o = 0; o < params->outer; ++o) {
            const int8_t *slab = input + ((size_t)b * (size_t)params->outer + (size_t)o) * (size_t)params->axis_size * inner;
            if (inner == 1) {
                gather_elements(slab, params->axis_size, batch_indices, params->num_indices, output);
                output += params->num_indices;
                continue;
            }
            const uint32_t axis_size = (uint32_t)params->axis_size;
            for (const int32_t *index = batch_indices, *const end = index + params->num_indices; index < end;
                 ++index, output += inner) {
                if ((uint32_t)*index < axis_size) {  /* 0 <= index < axis_size */
                    fg_copy_row(output, slab + (size_t)*index * inner, (int32_t)inner);
                } else {
                    memset(output, 0, inner);
                }
            }
        }
    }
}
