/* ARG_MAX and ARG_MIN of int8 along one axis, int32 indices (TFLite reference semantics: the first index of the
 * extreme wins; raw int8 values are compared). Seen from the axis the input is [outer, axis_size, inner]. */
#ifndef FG_ARG_MAX_H
#define FG_ARG_MAX_H

#include <stdint.h>

typedef struct {
    int32_t outer;
    int32_t axis_size;
    int32_t inner;
    int32_t flip; /* 0: ARG_MAX; -1: ARG_MIN, the arg max of the bitwise complements */
} fg_arg_max_params;

void fg_arg_max_s8(const fg_arg_max_params *params, const int8_t *input, int32_t *output);

#endif /* FG_ARG_MAX_H */
