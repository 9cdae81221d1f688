/* GATHER_ND: every row of `index_depth` indices picks one slice of `slice_size` contiguous elements,
 * at sum(index[d] * strides[d]). A row outside the input's bounds (TFLM stops with an error there) yields
 * zeros instead of reading out of bounds. With constant indices, the compiler computes every slice's offset
 * (-1 for a row outside the bounds) and fg_gather_nd_offsets_s8 only copies. */
#ifndef FG_GATHER_ND_H
#define FG_GATHER_ND_H

#include <stdint.h>

#include "fg/support/nd_walk.h"

typedef struct {
    int32_t num_slices;
    int32_t index_depth;
    int32_t slice_size;
    int32_t dims[FG_MAX_RANK];    /* size of each indexed input dimension */
    int32_t strides[FG_MAX_RANK]; /* its stride in elements */
} fg_gather_nd_params;

typedef struct {
    int32_t num_slices;
    int32_t slice_size;
    const int32_t *offsets; /* num_slices input offsets in elements, -1 for a row outside the bounds */
} fg_gather_nd_offsets_params;

void fg_gather_nd_s8(const fg_gather_nd_params *params, const int8_t *input, const int32_t *indices,
                     int8_t *output);

void fg_gather_nd_offsets_s8(const fg_gather_nd_offsets_params *params, const int8_t *input, int8_t *output);

#endif /* FG_GATHER_ND_H */
