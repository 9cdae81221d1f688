/* RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR on int8 NHWC tensors (TFLite Micro reference semantics). Which input
 * rows and columns each output row and column reads is computed at generation time (firmware_gen/ops/data_movement/resize.py). */
#ifndef FG_RESIZE_H
#define FG_RESIZE_H

#include <stdint.h>

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, depth;
    int32_t out_h, out_w;
    /* nearest: rows[out_h], cols[out_w], the input index copied;
     * bilinear: rows[out_h][3], cols[out_w][3]: lower index, upper index, weight of the upper one in 1/1024 */
    const int32_t *rows;
    const int32_t *cols;
} fg_resize_params;

/* Both store output pixels in raster order, each after reading the input pixels it needs. */
void fg_resize_nearest_s8(const fg_resize_params *params, const int8_t *input, int8_t *output);
/* int16 (16x8 models): the int8 kernel on bytes, depth counted in bytes. */
void fg_resize_nearest_s16(const fg_resize_params *params, const int16_t *input, int16_t *output);
void fg_resize_bilinear_s8(const fg_resize_params *params, const int8_t *input, int8_t *output);

#endif /* FG_RESIZE_H */
