/* SPLIT, SPLIT_V and UNPACK along one axis. Seen from the axis, the input is `outer` rows of `input_row`
 * elements; output k takes chunk_sizes[k] contiguous elements of each row, in order. Values are copied
 * unchanged, as TFLM does. int8, int16 (16x8 models), and float32 (the converter leaves a SPLIT in float between DEQUANTIZE and
 * QUANTIZE in Keras GRUs). */
#ifndef FG_SPLIT_H
#define FG_SPLIT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    int32_t num_outputs;
    int32_t outer;
    int32_t input_row;
    const int32_t *chunk_sizes; /* num_outputs entries, adding up to input_row */
} fg_split_params;

void fg_split_s8(const fg_split_params *params, const int8_t *input, int8_t *const outputs[]);
void fg_split_s16(const fg_split_params *params, const int16_t *input, int16_t *const outputs[]);
void fg_split_f32(const fg_split_params *params, const float *input, float *const outputs[]);

/* `outer` runs of `bytes` bytes, one per input row: with a constant `bytes` the memcpy is one load and store. */
static inline __attribute__((always_inline)) void fg_split_short_runs(uint8_t *to, const uint8_t *from,
                                                                      int32_t outer, size_t row, size_t bytes) {
    for (const uint8_t *const end = to + (size_t)outer * bytes; to < end; to += bytes, from += row) {
        memcpy(to, from, bytes);
    }
}

/* Output k of the split, whose chunk starts `offset` elements into each row; the walk of every element type. A
 * chunk of one, two or four bytes (UNPACK along the innermost axis) is copied without a memcpy call per row, which
 * would cost several times the bytes. */
static inline void fg_split_chunk(const fg_split_params *params, int32_t k, int32_t offset, size_t element_bytes,
                                  const void *input, void *output) {
    const size_t chunk = (size_t)params->chunk_sizes[k] * element_bytes;
    const size_t row = (size_t)params->input_row * element_bytes;
    const uint8_t *from = (const uint8_t *)input + (size_t)offset * element_bytes;
    uint8_t *to = (uint8_t *)output;
    if (chunk == 1 || chunk == 2 || chunk == 4) {
        if (chunk == 1) {
            fg_split_short_runs(to, from, params->outer, row, 1);
        } else if (chunk == 2) {
            fg_split_short_runs(to, from, params->outer, row, 2);
        } else {
            fg_split_short_runs(to, from, params->outer, row, 4);
        }
        return;
    }
    for (int32_t o = 0; o < params->outer; ++o) {
        memcpy(to + (size_t)o * chunk, from + (size_t)o * row, chunk);
    }
}

/* Every output of the split, for elements of element_bytes bytes (outputs: the kernel's array of pointers). */
static inline void fg_split_outputs(const fg_split_params *params, size_t element_bytes, const void *input,
                                    void *const outputs[]) {
    int32_t offset = 0;
    for (int32_t k = 0; k < params->num_outputs; ++k) {
        fg_split_chunk(params, k, offset, element_bytes, input, outputs[k]);
        offset += params->chunk_sizes[k];
    }
}

#endif /* FG_SPLIT_H */
