/* Walking a strided N-d view of a buffer in row-major order, for the data-movement kernels (TRANSPOSE,
 * MEAN). Shapes are coalesced at generation time, so the walks are short. */
#ifndef FG_ND_WALK_H
#define FG_ND_WALK_H

#include <stdint.h>

#define FG_MAX_RANK 6

/* Advances `index` (row-major over `shape`) by one element and returns `offset` moved by the matching
 * strides. Past the last element the index wraps to zero and the offset back to its start. */
static inline int32_t fg_nd_advance(int32_t rank, const int32_t *shape, const int32_t *strides, int32_t *index,
                                    int32_t offset) {
    for (int32_t d = rank - 1; d >= 0; --d) {
        offset += strides[d];
        if (++index[d] < shape[d]) {
            return offset;
        }
        offset -= strides[d] * shape[d];
        index[d] = 0;
    }
    return offset;
}

#endif /* FG_ND_WALK_H */
