/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on int8 NHWC tensors (TFLite Micro reference semantics); a 3-D [N, H, C]
 * tensor is passed as [N, H, 1, C] with block_w 1. */
#ifndef FG_SPACE_BATCH_H
#define FG_SPACE_BATCH_H

#include <stdint.h>

typedef struct {
    int32_t in_shape[4];   /* N, H, W, C */
    int32_t out_shape[4];
    int32_t block_h, block_w;
    int32_t before_h, before_w;  /* SPACE_TO_BATCH_ND: padding before (padded positions get 0, as TFLM's);
                                  * BATCH_TO_SPACE_ND: crop before */
} fg_space_batch_params;

void fg_space_to_batch_s8(const fg_space_batch_params *params, const int8_t *input, int8_t *output);
void fg_batch_to_space_s8(const fg_space_batch_params *params, const int8_t *input, int8_t *output);

#endif /* FG_SPACE_BATCH_H */
