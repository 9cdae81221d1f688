/* Broadcasting iteration for element-wise binary operators (ADD, SUB, MUL, ...) on int8 or int16 tensors.
 *
 * Generation time folds both input shapes into at most FG_BROADCAST_MAX_DIMS loops over the output (adjacent
 * dimensions with the same broadcast pattern are fused, as TFLite does), padded with leading extents of 1.
 * The output is written contiguously; each input advances by its own element stride per loop, 0 where that
 * input is broadcast. Same-shape operands become a single loop over every element. */
#ifndef FG_BROADCAST_H
#define FG_BROADCAST_H

#include <stddef.h>
#include <stdint.h>

#define FG_BROADCAST_MAX_DIMS 6

typedef struct {
    int32_t dims[FG_BROADCAST_MAX_DIMS];      /* output extents, outermost first */
    int32_t strides1[FG_BROADCAST_MAX_DIMS];  /* input 1 element stride per loop, 0 when broadcast */
    int32_t strides2[FG_BROADCAST_MAX_DIMS];
} fg_broadcast_shape;

/* Above this many outputs, a kernel's per-call table over the 256 int8 input values (ADD and SUB's rescaled inputs,
 * PRELU's non-negative branch) costs less than it saves. */
#define FG_BROADCAST_TABLE_MIN_OUTPUTS 1024

/* The operator's output element count: the product of the folded extents. */
static inline int32_t fg_broadcast_outputs(const fg_broadcast_shape *shape) {
    int32_t outputs = 1;
    for (int d = 0; d < FG_BROADCAST_MAX_DIMS; ++d) {
        outputs *= shape->dims[d];
    }
    return outputs;
}

/* Computes n outputs from in1[i * step1] and in2[i * step2] (a step of 0 repeats one element); the pointers are
 * to the operator's element type. */
typedef void (*fg_binary_row)(const void *params, const void *in1, int32_t step1, const void *in2, int32_t step2,
                              void *out, int32_t n);

/* Defines NAME, an fg_binary_row on TYPE elements storing ELEMENT(params, a, b): an int32 already in TYPE's range. */
#define FG_BINARY_ROW(NAME, TYPE, ELEMENT)                                                                      \
    static void NAME(const void *params, const void *in1, int32_t step1, const void *in2, int32_t step2,      \
                     void *out, int32_t n) {                                                                  \
        const TYPE *a = (const TYPE *)in1, *b = (const TYPE *)in2;                                            \
        TYPE *result = (TYPE *)out;                                                                           \
        if (step1 == 1 && step2 == 1) { /* same shapes, or a broadcast folded away */                         \
            for (int32_t i = 0; i < n; ++i) {                                                                 \
                result[i] = (TYPE)ELEMENT(params, a[i], b[i]);                                                \
            }                                                                                                 \
            return;                                                                                           \
        }                                                                                                     \
        for (int32_t i = 0; i < n; ++i) {                                                                     \
            result[i] = (TYPE)ELEMENT(params, a[i * step1], b[i * step2]);                                    \
        }                                                                                                     \
    }

/* Calls `row` once per innermost run; element_size is the bytes of one element of the inputs and the output. */
static inline void fg_broadcast_binary(const fg_broadcast_shape *shape, size_t element_size, const void *params,
                                       const void *in1, const void *in2, void *out, fg_binary_row row) {
    enum { OUTER = FG_BROADCAST_MAX_DIMS - 1 };
    const int32_t n = shape->dims[OUTER];
    int32_t rows = 1;
    for (int d = 0; d < OUTER; ++d) {
        rows *= shape->dims[d];
    }
    const uint8_t *bytes1 = (const uint8_t *)in1, *bytes2 = (const uint8_t *)in2;
    uint8_t *bytes_out = (uint8_t *)out;
    int32_t index[OUTER] = {0};
    int32_t offset1 = 0, offset2 = 0;
    for (int32_t r = 0; r < rows; ++r) {
        row(params, bytes1 + (size_t)offset1 * element_size, shape->strides1[OUTER],
            bytes2 + (size_t)offset2 * element_size, shape->strides2[OUTER], bytes_out, n);
        bytes_out += (size_t)n * element_size;
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
