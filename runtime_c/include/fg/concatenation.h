/* CONCATENATION along one axis. Seen from the axis, every tensor is `outer` rows; input i contributes
 * row_sizes[i] contiguous elements to each output row. Values are copied unchanged, as TFLM does. */
#ifndef FG_CONCATENATION_H
#define FG_CONCATENATION_H

#include <stdint.h>

typedef struct {
    int32_t num_inputs;
    int32_t outer;
    const int32_t *row_sizes; /* num_inputs entries */
} fg_concatenation_params;

void fg_concatenation_s8(const fg_concatenation_params *params, const int8_t *const inputs[], int8_t *output);

/* int16 tensors (16x8 models): fg_concatenation_s8 on their bytes, row sizes counted in bytes. */
void fg_concatenation_s16(const fg_concatenation_params *params, const int16_t *const inputs[], int16_t *output);

#endif /* FG_CONCATENATION_H */
