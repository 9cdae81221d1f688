/* A rectangular region of an NHWC tensor of one image, as patch-based execution reads and writes it
 * (firmware_gen/ops/patch_stage.py): the region's rows are not contiguous in the whole tensor, but they are in the
 * patch's dense buffer. */
#ifndef FG_REGION_H
#define FG_REGION_H

#include <stdint.h>

typedef struct {
    int32_t offset;      /* bytes from the whole tensor's start to the region's first byte */
    int32_t row_stride;  /* bytes from one row of the whole tensor to the next */
    int32_t rows;
    int32_t row_bytes;   /* bytes of one row of the region: its columns times the channels */
} fg_region;

/* whole -> the region's dense buffer (rows of row_bytes, one after the other). */
void fg_region_gather(const fg_region *region, const int8_t *whole, int8_t *dense);
/* The region's dense buffer -> its place in whole. */
void fg_region_scatter(const fg_region *region, const int8_t *dense, int8_t *whole);
/* A row buffer of a stage run in row buffers: its `bytes` from byte `from` on moved to its start (none: bytes 0). */
void fg_region_keep(int8_t *buffer, int32_t from, int32_t bytes);

#endif /* FG_REGION_H */
