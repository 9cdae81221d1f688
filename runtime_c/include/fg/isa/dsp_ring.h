/* The assembly the DSP ring kernels share (fg_depthwise_conv2d_3x3_ring_dsp, fg_conv2d_3x3_ring_dsp): four output
 * channels (a group) of a row of output pixels whose windows sit at offsets known to the assembler in a buffer of
 * sign-extended inputs. The group's constants, in RAM at w: its four doubled biases (word 0), each channel's
 * multiplier, offset and shift (words 4 .. 15), then its weight words from byte FG_DSP_RING_WEIGHTS. */
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

/* Channel j's output, its multiplier, offset and shift read by LDM from r11 (the group's constants): SMMULR, the
 * offset and the rounding correction of negative values, shift, SSAT. */
#define FG_DSP_RING_OUT(acc, j)                                \
    "ldm r11!, {r8, r9, r10}\n\t"                                \
    "smmulr " acc ", " acc ", r8\n\t"                             \
    "add r9, r9, " acc ", asr #31\n\t"                            \
    "add " acc ", " acc ", r9\n\t"                                \
    "asr " acc ", " acc ", r10\n\t"                               \
    "ssat " acc ", #8, " acc "\n\t"                               \
    "strb " acc ", [%[out], #" #j "]\n\t"
/* Without the correction (the output zero point -128 and the clamp all of int8: a negative value clamps to -128
 * either way): SMMLAR adds the offset on the way. */
#define FG_DSP_RING_OUT_RELU(acc, j)                           \
    "ldm r11!, {r8, r9, r10}\n\t"                                \
    "smmlar " acc ", " acc ", r8, r9\n\t"                         \
    "asr " acc ", " acc ", r10\n\t"                               \
    "ssat " acc ", #8, " acc "\n\t"                               \
    "strb " acc ", [%[out], #" #j "]\n\t"

/* job's rows of count pixels each (the next row's first window `skip` bytes after the end of a row): the biases by
 * one LDM, TAPS (accumulating into r4 .. r7 from the window at x, with r8 .. r11 free), then per output an LDM of
 * its constants and OUT; x advances `advance` bytes per pixel. Operands: x (r0), out (r3), job (r12), w. */
#define FG_DSP_RING_ASM(TAPS, OUT, advance)                                                       \
    __asm__ volatile(                                                                                 \
        "ldr lr, [%[job], #8]\n\t"                                                                  \
        "push {%[job], lr}\n"                                                                        \
        "2:\n\t"                                                                                    \
        "ldr r12, [sp]\n\t"                                                                         \
        "ldr lr, [r12, #4]\n\t"                                                                     \
        "ldr r12, [r12]\n"                                                                           \
        "1:\n\t"                                                                                    \
        "ldm %[w], {r4-r7}\n\t"                                                                     \
        TAPS                                                                                          \
        "add r11, %[w], #16\n\t"                                                                    \
        OUT("r4", 0) OUT("r5", 1) OUT("r6", 2) OUT("r7", 3)                                           \
        "add %[x], %[x], #" advance "\n\t"                                                          \
        "add %[out], %[out], r12\n\t"                                                               \
        "subs lr, lr, #1\n\t"                                                                       \
        "bne 1b\n\t"                                                                                \
        "ldr r12, [sp]\n\t"                                                                         \
        "ldr r12, [r12, #12]\n\t"                                                                   \
        "add %[x], %[x], r12\n\t"                                                                   \
        "ldr lr, [sp, #4]\n\t"                                                                      \
        "subs lr, lr, #1\n\t"                                                                       \
        "str lr, [sp, #4]\n\t"                                                                      \
        "bne 2b\n\t"                                                                                \
        "add sp, sp, #8\n\t"                                                                        \
        : [x] "+r"(rx), [out] "+r"(ro), [job] "+r"(rj)                                                \
        : [w] "r"(rw)                                                                                 \
        : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "cc", "memory")


#endif /* __ARM_FEATURE_DSP */
#endif /* FG_DSP_RING_H */
