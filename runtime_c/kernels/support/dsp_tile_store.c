/* The DSP tile-store functions of fg/isa/dsp_tile_store.h, one copy per firmware (they were static in every kernel
 * file that ran them); their assembly is fg/isa/dsp.h's, whose macros FG_DSP_TILE_STORES keeps defined here. */
#define FG_DSP_TILE_STORES
#include "fg/isa/dsp_tile_store.h"

#if defined(__ARM_FEATURE_DSP)
/* The 3 x 2 tile of fg_dsp_tile_3x2 for the pairs of narrow channels from job->ch to job->end in turn (their weight
 * blocks one after the other), the bias loaded and the output stage fused while the accumulators are in registers:
 * per output LSL + SMMULR + 3 for the rounding shift (relu: LSL + SMMLAR + ASR), the clamp (one SSAT when it is all
 * of int8), STRB. Per channel pair on the M4 timing (relu, doubled): the first input pair and the BX 14 + 2 cycles,
 * the output stage and the stores with the frame's bookkeeping 48 (the passes 13 an input pair, 2 a round of
 * FG_DSP_ROUND_PAIRS and 2 for each taken loop branch apart). */
FG_DSP_TILE_STORE_FUNCTION(fg_dsp_tile_store, FG_DSP_NARROW, CLAMPING)
/* fg_dsp_tile_store for a layer whose output zero point is -128 and clamp all of int8: no rounding correction of
 * negative values (they clamp to -128 either way) and no check of the clamp. */
FG_DSP_TILE_STORE_FUNCTION(fg_dsp_tile_store_relu, FG_DSP_RELU, RELU)
/* The two on doubled accumulators (the channels' weights and biases doubled at generation time: 2 acc fits a narrow
 * channel's), SMMULR or SMMLAR without the LSL. */
FG_DSP_TILE_STORE_FUNCTION(fg_dsp_tile_store_doubled, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_STORE_FUNCTION(fg_dsp_tile_store_relu_doubled, FG_DSP_RELU_DOUBLED, RELU)
/* The two doubled ones for 4 and 8 input pairs (the pointwise kernels' in_c <= 8 and <= 16). */
#undef FG_DSP_PAIR_NEXT
#define FG_DSP_PAIR_NEXT ""
#undef FG_DSP_STAGE_CH
#define FG_DSP_STAGE_CH ""
#undef FG_DSP_PAIR_CH_STORE
#define FG_DSP_PAIR_CH_STORE ""
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_4, FG_DSP_TILE_SHORT_4, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_8, FG_DSP_TILE_SHORT_8, FG_DSP_NARROW_DOUBLED, CLAMPING)
#if defined(FG_CORE_CORTEX_M7)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_4, FG_DSP_TILE_SHORT_4, FG_DSP_RELU_DOUBLED, RELU)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_8, FG_DSP_TILE_SHORT_8, FG_DSP_RELU_DOUBLED, RELU)
#else  /* the relu's two channel pairs a round (the loop's code within ~0.8 KB: the L4R5's ART caches 1 KB) */
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_4, FG_DSP_TILE_SHORT_PAIRED_4, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_8, FG_DSP_TILE_SHORT_PAIRED_8, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_16, FG_DSP_TILE_SHORT_16, FG_DSP_NARROW_DOUBLED, CLAMPING)
#if FG_DSP_DEEP_SHORT_STORES  /* the M33: the relu's two channel pairs a round at 16, 32 and 64 pairs too */
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_16, FG_DSP_TILE_SHORT_PAIRED_16, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_32, FG_DSP_TILE_SHORT_32, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_32, FG_DSP_TILE_SHORT_PAIRED_32, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_doubled_64, FG_DSP_TILE_SHORT_64, FG_DSP_NARROW_DOUBLED, CLAMPING)
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_64, FG_DSP_TILE_SHORT_PAIRED_64, FG_DSP_RELU_DOUBLED,
                          RELU_UNCHECKED)
#else
FG_DSP_TILE_LOOP_FUNCTION(fg_dsp_tile_store_relu_doubled_16, FG_DSP_TILE_SHORT_16, FG_DSP_RELU_DOUBLED, RELU)
#endif
#endif

#endif
