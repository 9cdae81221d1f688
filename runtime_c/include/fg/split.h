/* SPLIT, SPLIT_V and UNPACK along one axis. Seen from the axis, the input is `outer` rows of `input_row`
 * elements; output k takes chunk_sizes[k] contiguous elements of each row, in order. Values are copied
 * unchanged, as TFLM does. */
#ifndef FG_SPLIT_H
#define FG_SPLIT_H

#include <stdint.h>

typedef struct {
    int32_t num_outputs;
    int32_t outer;
    int32_t input_row;
    const int32_t *chunk_sizes; /* num_outputs entries, adding up to input_row */
} fg_split_params;

void fg_split_s8(const fg_split_params *params, const int8_t *input, int8_t *const outputs[]);

#endif /* FG_SPLIT_H */
