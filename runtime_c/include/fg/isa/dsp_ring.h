/* What the DSP ring kernels share (fg_depthwise_conv2d_3x3_ring_dsp, fg_conv2d_3x3_ring_dsp): the layout of a group
 * of four output channels' constants, in RAM at w: its four doubled biases (word 0), each channel's multiplier,
 * offset and shift (words 4 .. 15), then its weight words from byte FG_DSP_RING_WEIGHTS; the record of a job's rows;
 * and the output stage's assembly, one channel from a sum in a register. Each kernel's pass over its windows is its
 * own. */
#ifndef FG_DSP_RING_H
#define FG_DSP_RING_H

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP)

#define FG_DSP_RING_WEIGHTS 64
#define FG_DSP_RING_STR(x) #x
#define FG_DSP_RING_XSTR(x) FG_DSP_RING_STR(x)

/* What the assembly reads at job. */
typedef struct {
    int32_t step;   /* from one output pixel to the next: the output's channels */
    int32_t count;  /* output pixels of a row, >= 1 */
    int32_t rows;   /* >= 1 */
    int32_t skip;   /* bytes from the end of a row's windows to the next row's first */
} fg_dsp_ring_job;

/* Channel j's output from its multiplier, offset and shift in r8, r9, r10: SMMULR, the offset and the rounding
 * correction of negative values, shift, SSAT, the byte at out + j. */
#define FG_DSP_RING_REQUANT(acc, j)                             \
    "smmulr " acc ", " acc ", r8\n\t"                             \
    "add r9, r9, " acc ", asr #31\n\t"                            \
    "add " acc ", " acc ", r9\n\t"                                \
    "asr " acc ", " acc ", r10\n\t"                               \
    "ssat " acc ", #8, " acc "\n\t"                               \
    "strb " acc ", [%[out], #" #j "]\n\t"
/* Without the correction (the output zero point -128 and the clamp all of int8: a negative value clamps to -128
 * either way): SMMLAR adds the offset on the way. */
#define FG_DSP_RING_REQUANT_RELU(acc, j)                        \
    "smmlar " acc ", " acc ", r8, r9\n\t"                         \
    "asr " acc ", " acc ", r10\n\t"                               \
    "ssat " acc ", #8, " acc "\n\t"                               \
    "strb " acc ", [%[out], #" #j "]\n\t"
/* The two with the constants read by LDM from r11 (the group's constants). */
#define FG_DSP_RING_OUT(acc, j) "ldm r11!, {r8, r9, r10}\n\t" FG_DSP_RING_REQUANT(acc, j)
#define FG_DSP_RING_OUT_RELU(acc, j) "ldm r11!, {r8, r9, r10}\n\t" FG_DSP_RING_REQUANT_RELU(acc, j)

#endif /* __ARM_FEATURE_DSP */
#endif /* FG_DSP_RING_H */
