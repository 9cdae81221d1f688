/* Broadcasting iteration for element-wise binary operators (ADD, MUL) on int8 tensors.
 *
 * Generation time folds both input shapes into at most FG_BROADCAST_MAX_DIMS loops over the output (adjacent
 * dimensions with the same broadcast pattern are fused, as TFLite does), padded with leading extents of 1.
 * The output is written contiguously; each input advances by its own element stride per loop, 0 where that
 * input is broadcast. Same-shape operands become a single loop over every element. */
#ifndef FG_BROADCAST_H
#define FG_BROADCAST_H

#include <stdint.h>

#define FG_BROADCAST_MAX_DIMS 6

typedef struct {
    int32_t dims[FG_BROADCAST_MAX_DIMS];      /* output extents, outermost first */
    int32_t strides1[FG_BROADCAST_MAX_DIMS];  /* input 1 element stride per loop, 0 when broadcast */
    int32_t strides2[FG_BROADCAST_MAX_DIMS];
} fg_broadcast_shape;

/* Computes n outputs from in1[i * step1] and in2[i * step2] (a step of 0 repeats one element). */
typedef void (*fg_binary_row_s8)(const void *params, const int8_t *in1, int32_t step1, const int8_t *in2,
                                 int32_t step2, int8_t *out, int32_t n);

static inline void fg_broadcast_binary_s8(const fg_broadcast_shape *shape, const void *params, const int8_t *in1,
                                          const int8_t *in2, int8_t *out, fg_binary_row_s8 row) {
    enum { OUTER = FG_BROADCAST_MAX_DIMS - 1 };
    const int32_t n = shape->dims[OUTER];
    int32_t rows = 1;
    for (int d = 0; d < OUTER; ++d) {
        rows *= shape->dims[d];
    }
    int32_t index[OUTER] = {0};
    int32_t offset1 = 0, offset2 = 0;
    for (int32_t r = 0; r < rows; ++r) {
        row(params, in1 + offset1, shape->strides1[OUTER], in2 + offset2, shape->strides2[OUTER], out, n);
        out += n;
        /* Odometer over the outer loops; integer offsets so no pointer ever leaves its array. */
        for (int d = OUTER - 1; d >= 0; --d) {
            offset1 += shape->strides1[d];
            offset2 += shape->strides2[d];
            if (++index[d] < shape->dims[d]) {
                break;
            }
            index[d] = 0;
            offset1 -= shape->strides1[d] * shape->dims[d];
            offset2 -= shape->strides2[d] * shape->dims[d];
        }
    }
}

#endif /* FG_BROADCAST_H */
