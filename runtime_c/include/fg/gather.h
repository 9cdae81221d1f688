/* GATHER along one axis, with batch dimensions: for every batch b, every outer index o and every index i,
 * output[b][o][i][...] = input[b][o][indices[b][i]][...] (`inner` contiguous elements each). An index outside
 * [0, axis_size) (TFLM stops with an error there) yields zeros instead of reading out of bounds. */
#ifndef FG_GATHER_H
#define FG_GATHER_H

#include <stdint.h>

typedef struct {
    int32_t batches;     /* product of the first batch_dims dimensions */
    int32_t outer;       /* product of the input dimensions between the batch dimensions and the axis */
    int32_t axis_size;
    int32_t inner;       /* product of the input dimensions after the axis */
    int32_t num_indices; /* indices per batch */
} fg_gather_params;

void fg_gather_s8(const fg_gather_params *params, const int8_t *input, const int32_t *indices, int8_t *output);

#endif /* FG_GATHER_H */
