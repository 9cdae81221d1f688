#include "fg/mirror_pad.h"

void fg_mirror_pad_s8(const fg_mirror_pad_params *params, const int8_t *input, int8_t *output) {
    const int32_t rank = params->rank;
    int32_t index[FG_MAX_RANK] = {0};
    int32_t count = 1;
    for (int32_t d = 0; d < rank; ++d) {
        count *= params->output_shape[d];
    }
    for (int32_t e = 0; e < count; ++e) {
        int32_t offset = 0;
        for (int32_t d = 0; d < rank; ++d) {
            offset += params->source_offsets[params->map_start[d] + index[d]];
        }
        output[e] = input[offset];
        for (int32_t d = rank - 1; d >= 0 && ++index[d] == params->output_shape[d]; --d) {
            index[d] = 0;
        }
    }
}
