#include "fg/fully_connected.h"
#include "fg/support/requantize.h"
#include "fg/support/weights_s4.h"

void fg_fully_connected_s4(const fg_fully_connected_params *p, const int8_t *input, const int8_t *weights,
                           int8_t *output) {
    const int8_t *w = (const int8_t *)p->packed;
    const int32_t depth = p->accum_depth, out_depth = p->out_depth, row_bytes = (depth + 1) / 2;
    uint32_t acc[FG_REQUANT_CHUNK];
    (void)weights;
    for (int32_t b = 0; b < p->batches; ++b, input += depth, output += out_depth) {
        for (int32_t chunk = 0; chunk < out_depth; chunk += FG_REQUANT_CHUNK) {
            const int32_t count = out_depth - chunk < FG_REQUANT_CHUNK ? out_depth - chunk : FG_REQUANT_CHUNK;
            for (int32_t k = 0; k < count; k += 4) {
                const int8_t *rows[4];
                fg_s4_rows4(w, row_bytes, p->folded_bias, chunk, k, count, rows, acc);
                fg_dot4_s4(input, rows, depth, acc + k);
            }
            fg_requantize_run_s8(&p->requant, acc, chunk, count, output + chunk);
        }
    }
}
