#include "fg/support/dot_s8.h"
#include "fg/fully_connected.h"

void fg_fully_connected_folded_s8(const fg_fully_connected_params *p, const int8_t *input,
                                  const int8_t *weights, int8_t *output) {
    const int32_t depth = p->accum_depth, out_depth = p->out_depth;
    const fg_requant_params requant = p->requant;
    (void)weights;
    if (p->paired_weights != NULL) {  /* one batch */
        uint32_t acc[FG_REQUANT_CHUNK];
        const int32_t run = p->blocked.run, piece = p->blocked.call_taps;
        for (int32_t chunk = 0; chunk < out_depth; chunk += FG_REQUANT_CHUNK) {
            const int32_t count = out_depth - chunk < FG_REQUANT_CHUNK ? out_depth - chunk : FG_REQUANT_CHUNK;
            for (int32_t k = 0; k < count; k += FG_BLOCK_CHANNELS) {
                const int32_t *w = p->paired_weights + (chunk + k) / FG_BLOCK_CHANNELS * 2 * run;
                for (int32_t j = 0; j < FG_BLOCK_CHANNELS; ++j) {
                    acc[k + j] = (uint32_t)p->folded_bias[chunk + k + j < out_depth ? chunk + k + j : chunk + k];
                }
                for (int32_t t = 0; t < run; t += piece) {
                    fg_dot1x4_paired_s8(input + t, run - t < piece ? run - t : piece, w + 2 * t, acc + k);
                }
            }
            fg_requantize_run_s8(&requant, acc, chunk, count, output + chunk);
        }
        return;
    }
    for (int32_t b = 0; b < p->batches; b += 2) {
        /* an odd last batch (or every batch, past FG_PAIR_MAX_OUT outputs) is computed twice */
        const int pair = b + 1 < p->batches && out_depth <= FG_PAIR_MAX_OUT;
        const int8_t *x0 = input + b * depth;
        const int8_t *x1 = pair ? x0 + depth : x0;
        fg_blocked_pair_s8(&p->blocked, &x0, &x1, 0, out_depth, p->folded_bias, &requant, output + b * out_depth,
                           pair ? output + (b + 1) * out_depth : NULL);
        b -= !pair;
    }
}
