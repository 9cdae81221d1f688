/* AVERAGE_POOL_2D and MAX_POOL_2D on int8 or int16 NHWC tensors (TFLite reference semantics). */
#ifndef FG_POOLING_H
#define FG_POOLING_H

#include <stdint.h>

typedef struct {
    int32_t batches;
    int32_t in_h, in_w;
    int32_t channels;  /* same in input and output */
    int32_t out_h, out_w;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_top, pad_left;  /* implicit padding before the first row / column */
    int32_t activation_min, activation_max;
} fg_pool2d_params;

/* Windows are clipped to the input: padding is never part of a window. The average divides by the
 * number of in-bounds elements, rounding half away from zero; input and output share scale and zero point. */
void fg_avg_pool2d_s8(const fg_pool2d_params *params, const int8_t *input, int8_t *output);
void fg_max_pool2d_s8(const fg_pool2d_params *params, const int8_t *input, int8_t *output);
void fg_avg_pool2d_s16(const fg_pool2d_params *params, const int16_t *input, int16_t *output);
void fg_max_pool2d_s16(const fg_pool2d_params *params, const int16_t *input, int16_t *output);

/* A window sum divided by its element count, rounding half away from zero (TFLite's AveragePool). */
static inline int32_t fg_rounded_average(int32_t sum, int32_t count) {
    /* Generation rejects windows with no element in bounds; this only avoids a trap. */
    if (count <= 0) {
        return 0;
    }
    return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

/* The in-bounds part [*start, *end) of the window of output position `out` along one axis. */
static inline void fg_pool_window_1d(int32_t out, int32_t stride, int32_t pad, int32_t filter, int32_t in_size,
                                     int32_t *start, int32_t *end) {
    int32_t origin = out * stride - pad;
    *start = origin > 0 ? origin : 0;
    *end = origin + filter < in_size ? origin + filter : in_size;
}

/* One channel of one window, rows x cols elements of `input` (int8 or int16, as the reduction knows) from element
 * `first` (steps row_stride, col_stride), reduced to a value. */
typedef int32_t (*fg_pool2d_reduce)(const void *input, int32_t first, int32_t rows, int32_t cols,
                                    int32_t row_stride, int32_t col_stride);

/* The loop every pool shares: each output (raster order, channels innermost) is `reduce` of its clipped window,
 * clamped to the activation range and stored as int8 (element_bytes 1) or int16 (2). */
void fg_pool2d_walk(const fg_pool2d_params *p, const void *input, void *output, int32_t element_bytes,
                    fg_pool2d_reduce reduce);

#endif /* FG_POOLING_H */
