#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/support/dot_s8.h"
#include "fg/isa/dsp.h"

#define FG_DSP_DOT_BLOCK                     \
    "ldm r0!, {r4-r7}\n\t"                  \
    "ldm r1!, {r8, r9, r12, lr}\n\t"        \
    "smlad r10, r4, r8, r10\n\t"            \
    "smlad r10, r5, r9, r10\n\t"            \
    "smlad r10, r6, r12, r10\n\t"           \
    "smlad r10, r7, lr, r10\n\t"            \
    "ldm r2!, {r8, r9, r12, lr}\n\t"        \
    "smlad r11, r4, r8, r11\n\t"            \
    "smlad r11, r5, r9, r11\n\t"            \
    "smlad r11, r6, r12, r11\n\t"           \
    "smlad r11, r7, lr, r11\n\t"

/* job->acc[0..1] += two outputs' int16 weight pairs (wa, wb) . the row's input pairs x, 16 depths (8 pairs) per
 * pass: per 8 depths one LDM of the row's pairs, one LDM of each output's weights and 8 SMLAD (12 instructions per
 * 16 MACs with the loop). */
typedef struct {
    const uint32_t *x, *wa, *wb;
    int32_t blocks;  /* >= 1 */
    uint32_t acc[2];
} fg_dsp_dot_job;

static __attribute__((noinline)) void fg_dsp_dot_2(fg_dsp_dot_job *job) {
    register fg_dsp_dot_job *rj __asm__("r0") = job;
    __asm__ volatile(
        "push {%[job]}\n\t"
        "ldrd r1, r2, [%[job], #4]\n\t"
        "ldr r3, [%[job], #12]\n\t"
        "ldrd r10, r11, [%[job], #16]\n\t"
        "ldr %[job], [%[job]]\n"
        "1:\n\t"
        FG_DSP_DOT_BLOCK FG_DSP_DOT_BLOCK
        "subs r3, r3, #1\n\t"
        "bne 1b\n\t"
        "pop {%[job]}\n\t"
        "strd r10, r11, [%[job], #16]\n\t"
        : [job] "+r"(rj)
        :
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory");
}

/* What fg_dsp_fc_run reads (offsets fixed in its assembly). */
typedef struct {
    const uint32_t *x;          /* 0: the row's pairs */
    const uint32_t *w;          /* 4: the first output's weights (the next pair's follow) */
    int32_t stride;             /* 8: bytes of one output's weights */
    int32_t blocks;             /* 12: passes of 16 depths, >= 1 */
    const fg_dsp_channel *ch;   /* 16: the first output's constants, all narrow */
    int8_t *out;                /* 20 */
    int32_t count;              /* 24: pairs of outputs, >= 1 */
} fg_dsp_fc_job;

/* Every pair of outputs of job (all narrow, the clamp all of int8): the dot products of fg_dsp_dot_2 from the
 * doubled biases, 32 depths per pass (an odd count of 16-depth blocks enters the loop half way), then per output
 * SMMULR + 3 (SMMLAR + 1: OUT_RELU) + SSAT + STRB, without leaving the assembly. */
#define FG_DSP_FC_RUN(OUT)                                                                                     \
    __asm__ volatile(                                                                                          \
        "push {%[job]}\n"                                                                                      \
        "2:\n\t"                                                                                               \
        "ldr r7, [%[job], #16]\n\t"                                                                            \
        "ldr r10, [r7, #0]\n\t"                                                                                \
        "ldr r11, [r7, #16]\n\t"                                                                               \
        "ldrd r1, r2, [%[job], #4]\n\t"                                                                        \
        "add r2, r1, r2\n\t"                                                                                   \
        "ldr r3, [%[job], #12]\n\t"                                                                            \
        "ldr r0, [%[job], #0]\n\t"                                                                             \
        "tst r3, #1\n\t"                                                                                       \
        "add r3, r3, #1\n\t"                                                                                   \
        "lsr r3, r3, #1\n\t"                                                                                   \
        "bne 3f\n"                                                                                             \
        "1:\n\t"                                                                                               \
        FG_DSP_DOT_BLOCK FG_DSP_DOT_BLOCK                                                                      \
        "3:\n\t"                                                                                               \
        FG_DSP_DOT_BLOCK FG_DSP_DOT_BLOCK                                                                      \
        "subs r3, r3, #1\n\t"                                                                                  \
        "bne 1b\n\t"                                                                                           \
        "ldr r0, [sp]\n\t"                                                                                     \
        "str r2, [r0, #4]\n\t"                                                                                 \
        "ldr r7, [r0, #16]\n\t"                                                                                \
        "ldr r8, [r0, #20]\n\t"                                                                                \
        OUT("r10", 0, 0) OUT("r11", 1, 1)                                                                      \
        "add r7, r7, #32\n\t"                                                                                  \
        "add r8, r8, #2\n\t"                                                                                   \
        "strd r7, r8, [r0, #16]\n\t"                                                                           \
        "ldr r3, [r0, #24]\n\t"                                                                                \
        "subs r3, r3, #1\n\t"                                                                                  \
        "str r3, [r0, #24]\n\t"                                                                                \
        "bne 2b\n\t"                                                                                           \
        "add sp, sp, #4\n\t"                                                                                   \
        : [job] "+r"(rj)                                                                                       \
        :                                                                                                      \
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")

static __attribute__((noinline)) void fg_dsp_fc_run(fg_dsp_fc_job *job, int relu) {
    register fg_dsp_fc_job *rj __asm__("r0") = job;
    if (relu) {
        FG_DSP_FC_RUN(FG_DSP_FC_OUT_RELU);
    } else {
        FG_DSP_FC_RUN(FG_DSP_FC_OUT);
    }
}
#undef FG_DSP_FC_RUN
#undef FG_DSP_DOT_BLOCK

/* params->packed: one word, 1 when every channel is narrow, then fg_dsp_channel[out_depth] (a narrow channel's bias
 * doubled), then each output's weights pre-extended to int16 input pairs (doubled for a narrow channel; the depth
 * rounded up to 16, pair order as fg_dsp_extend writes them). */
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
        if (fast && out_c >= 2) {
            fg_dsp_fc_job job = {x, w, 4 * pairs, pairs >> 3, ch, output, out_c >> 1};
            fg_dsp_fc_run(&job, q.output_offset == -128);
            c = out_c & ~1;
        }
        for (; c < out_c; c += 2) {
            const int32_t second = c + 1 < out_c ? c + 1 : c;
            fg_dsp_dot_job job = {x, w + c * pairs, w + second * pairs, pairs >> 3,
                                  {(uint32_t)ch[c].bias, (uint32_t)ch[second].bias}};
            fg_dsp_dot_2(&job);
            output[c] = fg_dsp_output_doubled(job.acc[0], ch + c, &q);
            if (c + 1 < out_c) {
                output[c + 1] = fg_dsp_output_doubled(job.acc[1], ch + c + 1, &q);
            }
        }
    }
}
#endif
