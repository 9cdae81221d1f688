#include "fg/gather_nd.h"

#include <string.h>

#include "fg/support/hot_loop.h"
#include "fg/support/row_copy.h"

FG_HOT_LOOP void fg_gather_nd_offsets_s8(const fg_gather_nd_offsets_params *params, const int8_t *input,
                                         int8_t *output) {
    const int32_t num_slices = params->num_slices;
    const int32_t slice = params->slice_size;
    const int32_t *offsets = params->offsets;
    for (int32_t s = 0; s < num_slices; ++s, output += slice) {
        const int32_t offset = offsets[s];
        if (offset < 0) {
            memset(output, 0, (size_t)slice);
        } else {
            fg_copy_row(output, input + offset, slice);
        }
    }
}
