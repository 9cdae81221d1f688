#include "fg/region.h"

#include <string.h>

#include "fg/support/row_copy.h"

void fg_region_gather(const fg_region *region, const int8_t *whole, int8_t *dense) {
    const int8_t *row = whole + region->offset;
    for (int32_t y = 0; y < region->rows; ++y, row += region->row_stride, dense += region->row_bytes) {
        memcpy(dense, row, (size_t)region->row_bytes);
    }
}

void fg_region_scatter(const fg_region *region, const int8_t *dense, int8_t *whole) {
    int8_t *row = whole + region->offset;
    for (int32_t y = 0; y < region->rows; ++y, row += region->row_stride, dense += region->row_bytes) {
        memcpy(row, dense, (size_t)region->row_bytes);
    }
}

void fg_region_keep(int8_t *buffer, int32_t from, int32_t bytes) {
    if (bytes <= 0) {
        return;
    }
    /* Whole rows moved down by at least one 16-byte block: copied block by block, ascending, each block read
     * before anything at or after it is written. */
    if (from >= 16 && bytes % 16 == 0 && ((uintptr_t)buffer | (uintptr_t)from) % 4 == 0) {
        fg_copy_blocks(buffer, buffer + from, bytes);
    } else {
        memmove(buffer, buffer + from, (size_t)bytes);
    }
}
