#include "fg/region.h"

#include <string.h>

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
