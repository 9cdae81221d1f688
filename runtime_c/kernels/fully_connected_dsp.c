#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/dot_s8.h"
#include "fg/dsp_support.h"

/* acc[0..1] += two channels' int16 weight pairs (wa, wb) . the row's input pairs x, `pairs` of them (even). */
static inline __attribute__((always_inline)) void fg_dsp_dot_2(const uint32_t *x, const uint32_t *wa,
                                                                const uint32_t *wb, int32_t pairs, uint32_t acc[2]) {
    int32_t a = (int32_t)acc[0], b = (int32_t)acc[1];
    for (int32_t g = 0; g < pairs; g += 2) {
        const int16x2_t x0 = (int16x2_t)x[g], x1 = (int16x2_t)x[g + 1];
        a = __smlad(x0, (int16x2_t)wa[g], a);
        b = __smlad(x0, (int16x2_t)wb[g], b);
        a = __smlad(x1, (int16x2_t)wa[g + 1], a);
        b = __smlad(x1, (int16x2_t)wb[g + 1], b);
    }
    acc[0] = (uint32_t)a;
    acc[1] = (uint32_t)b;
}

/* Four outputs' dot products over the row: job->acc[j] += weights of output j (w + j * stride bytes) . x. */
typedef struct {
    const uint32_t *x;
    const uint32_t *w;
    int32_t stride;  /* bytes from one output's weights to the next's */
    int32_t quads;   /* pairs / 2, >= 1 */
    uint32_t acc[4];
} fg_dsp_dot_job;

#define FG_DSP_DOT_ONE(w, acc)               \
    "ldrd r11, r12, [" w "], #8\n\t"         \
    "smlad " acc ", r9, r11, " acc "\n\t"    \
    "smlad " acc ", r10, r12, " acc "\n\t"

/* Per four depths one LDRD of the row's pairs, per output one LDRD of its weights and 2 SMLAD: 15 instructions per
 * 16 MACs. */
static __attribute__((noinline)) void fg_dsp_dot_4(fg_dsp_dot_job *job) {
    register fg_dsp_dot_job *rj __asm__("r0") = job;
    __asm__ volatile(
        "push {%[job]}\n\t"
        "ldrd r1, r2, [%[job], #4]\n\t"
        "ldr lr, [%[job], #12]\n\t"
        "add r3, r1, r2\n\t"
        "add r4, r3, r2\n\t"
        "ldrd r5, r6, [%[job], #16]\n\t"
        "ldrd r7, r8, [%[job], #24]\n\t"
        "add r2, r4, r2\n\t"
        "ldr %[job], [%[job]]\n"
        "1:\n\t"
        "ldrd r9, r10, [%[job]], #8\n\t"
        FG_DSP_DOT_ONE("r1", "r5") FG_DSP_DOT_ONE("r3", "r6") FG_DSP_DOT_ONE("r4", "r7") FG_DSP_DOT_ONE("r2", "r8")
        "subs lr, lr, #1\n\t"
        "bne 1b\n\t"
        "pop {%[job]}\n\t"
        "strd r5, r6, [%[job], #16]\n\t"
        "strd r7, r8, [%[job], #24]\n\t"
        : [job] "+r"(rj)
        :
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory");
}
#undef FG_DSP_DOT_ONE

/* params->packed: fg_dsp_channel[out_depth], then each output's weights pre-extended to int16 input pairs (the
 * depth rounded up to 4, pair order as fg_dsp_extend writes them). */
FG_HOT_LOOP void fg_fully_connected_dsp(const fg_fully_connected_params *p, const int8_t *input,
                                        const int8_t *weights, int8_t *output) {
    (void)weights;
    const int32_t depth = p->accum_depth, out_c = p->out_depth, pairs = ((depth + 3) >> 2) << 1;
    const fg_requant_params q = p->requant;  /* a local copy: the int8 stores may alias params */
    const fg_dsp_channel *ch = (const fg_dsp_channel *)p->packed;
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    uint32_t x[FG_DSP_FC_MAX_DEPTH / 2];
    for (int32_t b = 0; b < p->batches; ++b, input += depth, output += out_c) {
        fg_dsp_extend(input, depth, pairs, x, 1);
        int32_t c = 0;
        for (; c + 4 <= out_c; c += 4) {
            fg_dsp_dot_job job = {x, w + c * pairs, 4 * pairs, pairs >> 1,
                                  {(uint32_t)ch[c].bias, (uint32_t)ch[c + 1].bias, (uint32_t)ch[c + 2].bias,
                                   (uint32_t)ch[c + 3].bias}};
            fg_dsp_dot_4(&job);
            for (int32_t j = 0; j < 4; ++j) {
                fg_dsp_store_channel(job.acc + j, ch + c + j, 1, output + c + j, 1, &q);
            }
        }
        for (; c < out_c; c += 2) {
            const int32_t second = c + 1 < out_c ? c + 1 : c;
            uint32_t acc[2] = {(uint32_t)ch[c].bias, (uint32_t)ch[second].bias};
            fg_dsp_dot_2(x, w + c * pairs, w + second * pairs, pairs, acc);
            fg_dsp_store_channel(acc, ch + c, 1, output + c, 1, &q);
            if (c + 1 < out_c) {
                fg_dsp_store_channel(acc + 1, ch + c + 1, 1, output + c + 1, 1, &q);
            }
        }
    }
}
#endif
