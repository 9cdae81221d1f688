#include "fg/gather_nd.h"

#include <string.h>

void fg_gather_nd_s8(const fg_gather_nd_params *params, const int8_t *input, const int32_t *indices,
                     int8_t *output) {
    const size_t slice = (size_t)params->slice_size;
    for (int32_t s = 0; s < params->num_slices; ++s) {
        const int32_t *row = indices + (size_t)s * (size_t)params->index_depth;
        int32_t offset = 0;
        int inside = 1;
        for (int32_t d = 0; d < params->index_depth; ++d) {
            inside &= row[d] >= 0 && row[d] < params->dims[d];
            offset += row[d] * params->strides[d];
        }
        if (inside) {
            memcpy(output, input + offset, slice);
        } else {
            memset(output, 0, slice);
        }
        output += slice;
    }
}
