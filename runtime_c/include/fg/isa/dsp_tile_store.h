/* The DSP tile stores (fg/isa/dsp.h's FG_DSP_TILE_STORE and FG_DSP_TILE_SHORT_*: the 3 x 2 tile of fg_dsp_tile_3x2
 * for every whole channel pair with the output stage fused), defined once per firmware by
 * runtime_c/kernels/support/dsp_tile_store.c, and the loop that calls them. Outside __ARM_FEATURE_DSP this header
 * declares nothing. */
#ifndef FG_DSP_TILE_STORE_H
#define FG_DSP_TILE_STORE_H

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp.h"

/* A tile-store function (those below taking an fg_dsp_job). */
typedef void (*fg_dsp_tile_store_function)(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);

void fg_dsp_tile_store_doubled(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_relu_doubled(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
/* For 4 and 8 input pairs (the pointwise kernels' in_c <= 8 and <= 16), doubled. */
void fg_dsp_tile_store_doubled_4(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_relu_doubled_4(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_doubled_8(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_relu_doubled_8(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
/* The M4's general stores over a pixel block's tiles (the M33's run its 32 and 64 pairs' so, FG_DSP_SHORT_NEXT_X; the
 * M7's and the M55's a tile a call). */
#if !defined(FG_CORE_CORTEX_M7) && !defined(__ARM_FEATURE_MVE) && !FG_DSP_DEEP_SHORT_STORES
#define FG_DSP_TILES_STORES 1
#else
#define FG_DSP_TILES_STORES 0
#endif
#if FG_DSP_TILES_STORES
/* fg_dsp_tile_store_doubled and fg_dsp_tile_store_relu_doubled over `tiles` tiles of three (FG_DSP_TILE_STORE_TILES,
 * fg/isa/dsp.h): their input pairs x_bytes apart from the job's x, each tile's outputs three strides past the last's;
 * the job's out the first tile's, ch0 and w0 its ch and the weights passed. Its words from 40 are the frame's. */
typedef struct {
    fg_dsp_job job;
    int32_t tiles;           /* 40 */
    int32_t x_bytes;         /* 44 */
    uintptr_t ch0;           /* 48 */
    const uint32_t *w0;      /* 52 */
} fg_dsp_tiles_job;
_Static_assert(__builtin_offsetof(fg_dsp_tiles_job, tiles) == 40, "the frame's words from 40 (FG_DSP_TILES_HEAD)");
void fg_dsp_tile_store_doubled_tiles(const uint32_t *x, const uint32_t *w, const fg_dsp_tiles_job *job);
void fg_dsp_tile_store_relu_doubled_tiles(const uint32_t *x, const uint32_t *w, const fg_dsp_tiles_job *job);
#endif
#if !defined(FG_CORE_CORTEX_M7)
/* For 16 input pairs (in_c <= 32), doubled: chosen by the pointwise kernels alone (fg_dsp_pointwise_in_turn). */
void fg_dsp_tile_store_doubled_16(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_relu_doubled_16(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
#endif
#if defined(FG_CORE_CORTEX_M7)
/* The M7's pointwise tiles of four pixels (fg_dsp_quad_store_relu_doubled*): what the stores read besides the four
 * pixels' input pairs (x, stride 4: pixel p's pair g at x[4 g + p]) and the weights, copied into a frame at sp. */
typedef struct {
    uintptr_t ch;       /*  0: &multiplier of the pair's first channel (its fg_dsp_channel + 4); advances 32 a pair */
    int8_t *out;        /*  4: pixel 0's output of the pair's first channel; advances 2 a pair */
    int32_t stride;     /*  8: from one pixel's outputs to the next */
    const uint32_t *x;  /* 12: the pixels' first pairs, where each tile starts again */
    uintptr_t end;      /* 16: ch past the last channel pair */
    uintptr_t x_end;    /* 20: x past the pixels' pairs (a multiple of 16 pairs); the short stores': the call's tiles */
    /* the short stores' (4 to 64 pairs, the depth 2 * pairs), every tile of the call in one: */
    const int8_t *next;      /* 24: the next tile's inputs (4 pixels of depth int8) */
    uintptr_t ch0;           /* 28: ch of the tile's first pair */
    const uint32_t *w0;      /* 32: the weights of the tile's first pair */
    int8_t *tile_out;        /* 36: out of the tile's first pair */
} fg_dsp_quad_job;
/* Every channel pair of the job, relu and doubled (fg_dsp_tile_store_relu_doubled's outputs), four pixels. */
void fg_dsp_quad_store_relu_doubled(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
/* The same for pairs a multiple of 32. */
void fg_dsp_quad_store_relu_doubled_32(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
/* And for pairs a multiple of 20 (the folded kernel's, a tile a call). */
void fg_dsp_quad_store_relu_doubled_20(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
/* The same for 4, 8, 16, 32 and 64 input pairs (in_c 8 to 128), every tile of the job (x holding the first's pairs). */
void fg_dsp_quad_store_relu_doubled_4(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
void fg_dsp_quad_store_relu_doubled_8(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
void fg_dsp_quad_store_relu_doubled_16(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
void fg_dsp_quad_store_relu_doubled_32s(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
void fg_dsp_quad_store_relu_doubled_64s(const uint32_t *x, const uint32_t *w, const fg_dsp_quad_job *job);
#endif
#if FG_DSP_DEEP_SHORT_STORES
/* For 32 and 64 input pairs on the M33, doubled: job->passes tiles a call, each the next's x 12 * pairs bytes on
 * (FG_DSP_SHORT_NEXT_X; fg_dsp_tile_job sets one, fg_dsp_block_tiles a staged block's whole tiles). */
void fg_dsp_tile_store_doubled_32(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_relu_doubled_32(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_doubled_64(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
void fg_dsp_tile_store_relu_doubled_64(const uint32_t *x, const uint32_t *w, const fg_dsp_job *job);
#endif

/* The job of the tile-store function for every whole channel pair of `channels` (>= 2, all narrow) at ch, three
 * pixels' input pairs at x, pixel p's outputs at out + p * stride; returns that function (the channels' weights and
 * biases doubled, as the generator lays every narrow channel's). A job's out may change from call to call (the next
 * tile's). */
static inline fg_dsp_tile_store_function fg_dsp_tile_job(fg_dsp_job *job, const uint32_t *x, int32_t pairs,
                                                        const fg_dsp_channel *ch, int32_t channels, int32_t stride,
                                                        int8_t *out, const fg_requant_params *q) {
    const int full = q->activation_min == -128 && q->activation_max == 127;
    const fg_dsp_job j = {(uintptr_t)ch + 4, out, stride, x, (uintptr_t)(ch + (channels & ~1)) + 4,
                          FG_DSP_ROUNDS(pairs), FG_DSP_ENTRY(pairs), q->activation_min,
                          q->activation_max, full
#if defined(FG_CORE_CORTEX_M7)
                          , (uintptr_t)x + 12 - 12 * FG_DSP_ENTERED_PASS(pairs), 8 - 8 * FG_DSP_ENTERED_PASS(pairs)
#endif
    };
    *job = j;
    const int relu = full && q->output_offset == -128;
    if (((pairs - 4) & ~4) == 0) {  /* 4 or 8 pairs: one test on the path of the others */
        static const fg_dsp_tile_store_function short_stores[2][2] = {
            {fg_dsp_tile_store_doubled_4, fg_dsp_tile_store_relu_doubled_4},
            {fg_dsp_tile_store_doubled_8, fg_dsp_tile_store_relu_doubled_8}};
        return short_stores[pairs >> 3][relu];
    }
#if FG_DSP_DEEP_SHORT_STORES
    if (((pairs - 32) & ~32) == 0) {  /* 32 or 64 pairs on the M33: one tile (FG_DSP_SHORT_NEXT_X) */
        job->passes = 1;
        static const fg_dsp_tile_store_function deep_stores[2][2] = {
            {fg_dsp_tile_store_doubled_32, fg_dsp_tile_store_relu_doubled_32},
            {fg_dsp_tile_store_doubled_64, fg_dsp_tile_store_relu_doubled_64}};
        return deep_stores[pairs >> 6][relu];
    }
#endif
    return relu ? fg_dsp_tile_store_relu_doubled : fg_dsp_tile_store_doubled;
}

/* Output channels [0, channels) of up to three pixels whose input pairs fg_dsp_extend laid out in x (stride 3): the
 * weights are one block of 2 * pairs words per channel pair, pixel p's outputs go to output + p * stride; a narrow
 * channel's weights and bias are doubled (a wide one's not). narrow: no channel is wide (fg_dsp_all_narrow). */
static inline void fg_dsp_gemm_3_strided(const uint32_t *x, const uint32_t *weights, int32_t pairs,
                                         const fg_dsp_channel *ch, int32_t channels, int32_t stride, int32_t pixels,
                                         int8_t *output, const fg_requant_params *q, int narrow) {
    int32_t c = 0;
    if (pixels == 3 && narrow && channels >= 2) {  /* every whole channel pair in one call */
        fg_dsp_job job;
        fg_dsp_tile_job(&job, x, pairs, ch, channels, stride, output, q)(x, weights, &job);
        c = channels & ~1;
        weights += (channels >> 1) * 2 * pairs;
    }
    for (; c < channels; c += 2, weights += 2 * pairs) {
        uint32_t acc[6];
        fg_dsp_bias_3x2(ch, c, channels, acc);
        fg_dsp_tile_3x2(x, weights, pairs >> 2, acc);
        for (int32_t k = 0; k < 2 && c + k < channels; ++k) {
            for (int32_t p = 0; p < pixels; ++p) {
                output[p * stride + c + k] = fg_dsp_output_doubled(acc[3 * k + p], ch + c + k, q);
            }
        }
    }
}

#endif /* __ARM_FEATURE_DSP */
#endif /* FG_DSP_TILE_STORE_H */
