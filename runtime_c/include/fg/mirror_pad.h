/* MIRROR_PAD (REFLECT and SYMMETRIC) of int8 data, through per-dimension index maps computed at generation
 * time: output element (p0..pn) = input[sum(source_offsets[d][p_d])], where source_offsets[d] lists, for each
 * output coordinate along d, the mirrored input coordinate times the input stride. */
#ifndef FG_MIRROR_PAD_H
#define FG_MIRROR_PAD_H

#include <stdint.h>

#include "fg/support/nd_walk.h"

typedef struct {
    int32_t rank;
    int32_t output_shape[FG_MAX_RANK];
    int32_t map_start[FG_MAX_RANK];  /* where dimension d's map begins in source_offsets */
    const int32_t *source_offsets;   /* sum(output_shape) entries */
} fg_mirror_pad_params;

void fg_mirror_pad_s8(const fg_mirror_pad_params *params, const int8_t *input, int8_t *output);

#endif /* FG_MIRROR_PAD_H */
