#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"

/* 8 depths of four outputs: one LDM of the row's 4 pair words, then per output one LDM of its 4 weight words (the
 * four outputs' weights interleaved per 8 depths) and 4 SMLAD: 21 instructions per 32 MACs. */
#define FG_DSP_DOT_OUTPUT(acc)               \
    "ldm r1!, {r6, r7, r8, r9}\n\t"         \
    "smlad " acc ", r2, r6, " acc "\n\t"    \
    "smlad " acc ", r3, r7, " acc "\n\t"    \
    "smlad " acc ", r4, r8, " acc "\n\t"    \
    "smlad " acc ", r5, r9, " acc "\n\t"
#define FG_DSP_DOT_BLOCK                     \
    "ldm r0!, {r2-r5}\n\t"                  \
    FG_DSP_DOT_OUTPUT("r10") FG_DSP_DOT_OUTPUT("r11") FG_DSP_DOT_OUTPUT("r12") FG_DSP_DOT_OUTPUT("lr")

/* job->acc[0..3] += four outputs' interleaved int16 weight pairs . the row's input pairs x, 16 depths per pass. */
typedef struct {
    const uint32_t *x, *w;
    int32_t blocks;  /* >= 1 */
    uint32_t acc[4];
} fg_dsp_dot_job;

static __attribute__((noinline)) void fg_dsp_dot_4(fg_dsp_dot_job *job) {
    register fg_dsp_dot_job *rj __asm__("r0") = job;
    __asm__ volatile(
        "push {%[job]}\n\t"
        "ldrd r1, r2, [%[job], #4]\n\t"
        "ldrd r10, r11, [%[job], #12]\n\t"
        "ldrd r12, lr, [%[job], #20]\n\t"
        "ldr %[job], [%[job]]\n\t"
        "add r2, %[job], r2, lsl #5\n\t"
        "push {r2}\n"
        "1:\n\t"
        FG_DSP_DOT_BLOCK FG_DSP_DOT_BLOCK
        "ldr r6, [sp]\n\t"
        "cmp %[job], r6\n\t"
        "bne 1b\n\t"
        "add sp, sp, #4\n\t"
        "pop {%[job]}\n\t"
        "strd r10, r11, [%[job], #12]\n\t"
        "strd r12, lr, [%[job], #20]\n\t"
        : [job] "+r"(rj)
        :
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory");
}

/* What fg_dsp_fc_run reads (offsets fixed in its assembly). */
typedef struct {
    const uint32_t *x;          /* 0: the row's pairs */
    const uint32_t *w;          /* 4: the next four outputs' weights */
    int32_t half;               /* 8: 1 when the row's 16-depth blocks are odd (each pass of 32 enters half way) */
    const fg_dsp_channel *ch;   /* 12: the first output's constants, all narrow */
    int8_t *out;                /* 16 */
    int32_t count;              /* 20: quadruples of outputs, >= 1 */
} fg_dsp_fc_job;

/* Every quadruple of outputs of job (all narrow, the clamp all of int8): the dot products of fg_dsp_dot_4 from the
 * doubled biases, 32 depths per pass until x reaches the row's end (on the stack above job), then per output SMMULR + 3
 * (SMMLAR + 1: OUT_RELU) + SSAT + STRB, without leaving the assembly. */
#define FG_DSP_FC_RUN(OUT)                                                                                     \
    __asm__ volatile(                                                                                          \
        "push {%[job], %[end]}\n"                                                                              \
        "2:\n\t"                                                                                               \
        "ldr r7, [%[job], #12]\n\t"                                                                            \
        "ldr r10, [r7, #0]\n\t"                                                                                \
        "ldr r11, [r7, #16]\n\t"                                                                               \
        "ldr r12, [r7, #32]\n\t"                                                                               \
        "ldr lr, [r7, #48]\n\t"                                                                                \
        "ldrd r1, r2, [%[job], #4]\n\t"                                                                        \
        "ldr r0, [%[job], #0]\n\t"                                                                             \
        "cmp r2, #0\n\t"                                                                                       \
        "bne 3f\n"                                                                                             \
        "1:\n\t"                                                                                               \
        FG_DSP_DOT_BLOCK FG_DSP_DOT_BLOCK                                                                      \
        "3:\n\t"                                                                                               \
        FG_DSP_DOT_BLOCK FG_DSP_DOT_BLOCK                                                                      \
        "ldr r6, [sp, #4]\n\t"                                                                                 \
        "cmp r0, r6\n\t"                                                                                       \
        "bne 1b\n\t"                                                                                           \
        "ldr r0, [sp]\n\t"                                                                                 \
        "str r1, [r0, #4]\n\t"                                                                                 \
        "ldrd r7, r8, [r0, #12]\n\t"                                                                           \
        OUT("r10", 0, 0) OUT("r11", 1, 1) OUT("r12", 2, 2) OUT("lr", 3, 3)                                     \
        "add r7, r7, #64\n\t"                                                                                  \
        "add r8, r8, #4\n\t"                                                                                   \
        "strd r7, r8, [r0, #12]\n\t"                                                                           \
        "ldr r3, [r0, #20]\n\t"                                                                                \
        "subs r3, r3, #1\n\t"                                                                                  \
        "str r3, [r0, #20]\n\t"                                                                                \
        "bne 2b\n\t"                                                                                           \
        "add sp, sp, #8\n\t"                                                                                   \
        : [job] "+r"(rj), [end] "+r"(re)                                                                       \
        :                                                                                                      \
        : "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")

/* end: past the row's pairs. */
static __attribute__((noinline)) void fg_dsp_fc_run(fg_dsp_fc_job *job, const uint32_t *end, int relu) {
    register fg_dsp_fc_job *rj __asm__("r0") = job;
    register const uint32_t *re __asm__("r1") = end;
    if (relu) {
        FG_DSP_FC_RUN(FG_DSP_FC_OUT_RELU);
    } else {
        FG_DSP_FC_RUN(FG_DSP_FC_OUT);
    }
}
#undef FG_DSP_FC_RUN
#undef FG_DSP_DOT_BLOCK
#undef FG_DSP_DOT_OUTPUT

/* params->packed: one word, 1 when every channel is narrow, then fg_dsp_channel[out_depth] (a narrow channel's bias
 * doubled), then per four outputs (the last padded with zero weights) and per 8 depths each output's weights
 * pre-extended to 4 words of int16 input pairs (doubled for a narrow channel; the depth rounded up to 16, pair order
 * as fg_dsp_extend writes them). */
FG_HOT_LOOP void fg_fully_connected_dsp(const fg_fully_connected_params *p, const int8_t *input,
                                        const int8_t *weights, int8_t *output) {
    (void)weights;
    const int32_t depth = p->accum_depth, out_c = p->out_depth, pairs = ((depth + 15) >> 4) << 3;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const int32_t *table = (const int32_t *)p->packed;
    const fg_dsp_channel *ch = (const fg_dsp_channel *)(table + 1);
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    const int fast = q.activation_min == -128 && q.activation_max == 127 && table[0];
    uint32_t x[FG_DSP_FC_MAX_DEPTH / 2];
    for (int32_t b = 0; b < p->batches; ++b, input += depth, output += out_c) {
        fg_dsp_extend(input, depth, pairs, x, 1);
        int32_t c = 0;
        if (fast && out_c >= 4) {
            fg_dsp_fc_job job = {x, w, (pairs >> 3) & 1, ch, output, out_c / 4};
            fg_dsp_fc_run(&job, x + pairs, q.output_offset == -128);
            c = out_c - out_c % 4;
        }
        for (; c < out_c; c += 4) {
            fg_dsp_dot_job job = {x, w + c * pairs, pairs >> 3, {(uint32_t)ch[c].bias, 0, 0, 0}};
            for (int32_t k = 1; k < 4 && c + k < out_c; ++k) {
                job.acc[k] = (uint32_t)ch[c + k].bias;
            }
            fg_dsp_dot_4(&job);
            for (int32_t k = 0; k < 4 && c + k < out_c; ++k) {
                output[c + k] = fg_dsp_output_doubled(job.acc[k], ch + c + k, &q);
            }
        }
    }
}
#endif
