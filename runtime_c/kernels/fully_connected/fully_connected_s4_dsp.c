/* FULLY_CONNECTED with 4-bit weights on the DSP extension: the row sign-extended once into input pairs (fg_dsp_extend,
 * as fg_fully_connected_dsp), then two outputs per pass of SMLAD on weights that one AND with a shifted operand turns
 * into an SMLAD-ready pair: the weights are stored + 8 (unsigned nibbles, no sign to restore), and the 8 x (sum of
 * the row) this adds to every output is taken off once per output.
 *
 * params->packed: one word, 1 when every channel is narrow, then fg_dsp_channel[out_depth] (the int8 variants' output
 * stage, dsp.channel_constants), then per output pair (A, B) (an odd last one with a padding channel) and per 8 depths
 * (the depth rounded up to 16, zero weights past it) the words of A then B: nibble j (j < 4) the weight + 8 of the
 * low lane of input pair j of the 8 depths, nibble 4 + j that of its high lane (pairs as fg_dsp_extend lays them:
 * (x0, x2), (x1, x3), (x4, x6), (x5, x7)), so that (word >> 4j) & 0x000F000F is the pair of weights of input pair j
 * (firmware_gen/ops/variants/dsp_4bit.py). One row takes 8 x ceil(depth / 16) bytes: TFLite's ceil(n / 2) when the
 * depth is a multiple of 16 and out_depth even. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp.h"

#define FG_S4_FC_CHUNK 32 /* outputs whose sums one run of fg_s4_fc_sums leaves on the stack (even) */

/* What fg_s4_fc_sums and fg_s4_fc_run read (offsets fixed in their assembly). */
typedef struct {
    const uint32_t *x;         /* 0: the row's input pairs */
    const uint32_t *w;         /* 4: the first output pair's weight words (the next pairs' follow) */
    int32_t passes;            /* 8: passes of 16 depths, >= 1 */
    const fg_dsp_channel *ch;  /* 12: the first output's constants (fg_s4_fc_run) */
    void *out;                 /* 16: two sums (fg_s4_fc_sums) or two int8 outputs (fg_s4_fc_run) per pair */
    int32_t count;             /* 20: output pairs, >= 1 */
    uint32_t eights;           /* 24: 8 x the row's sum, taken off every output */
} fg_s4_fc_job;

/* Input pair j (a register of r4-r7) against the pair's words r8 (A) and r9 (B) shifted by `shift`: 2 AND + 2 SMLAD. */
#define FG_S4_FC_PAIR(x, shift)                   \
    "and r12, r3, r8" shift "\n\t"                \
    "smlad r10, r12, " x ", r10\n\t"              \
    "and r12, r3, r9" shift "\n\t"                \
    "smlad r11, r12, " x ", r11\n\t"
/* 8 depths of two outputs: 18 instructions per 16 products. */
#define FG_S4_FC_BLOCK                            \
    "ldm r0!, {r4-r7}\n\t"                        \
    "ldrd r8, r9, [r1], #8\n\t"                   \
    FG_S4_FC_PAIR("r4", "") FG_S4_FC_PAIR("r5", ", lsr #4")                        \
    FG_S4_FC_PAIR("r6", ", lsr #8") FG_S4_FC_PAIR("r7", ", lsr #12")
/* Per pair of outputs of the job at lr: r10, r11 from BIAS, the passes over the row (32 depths a loop, an odd count
 * of 16-depth passes entering it half way), then STORE (r10, r11 free, r0 r2 r4-r9 r12 scratch; r1, r3 and lr kept), then on to the next pair. */
#define FG_S4_FC_LOOP(BIAS, STORE)                                                                             \
    __asm__ volatile(                                                                                          \
        "mov lr, %[job]\n\t"                                                                                   \
        "movw r3, #15\n\t"                                                                                     \
        "movt r3, #15\n\t"                                                                                     \
        "ldr r1, [lr, #4]\n"                                                                                   \
        "2:\n\t"                                                                                               \
        "ldr r0, [lr, #0]\n\t"                                                                                 \
        BIAS                                                                                                   \
        "ldr r2, [lr, #8]\n\t"                                                                                 \
        "lsrs r2, r2, #1\n\t"                                                                                  \
        "adc r2, r2, #0\n\t"                                                                                   \
        "bcs 3f\n"                                                                                              \
        "1:\n\t"                                                                                               \
        FG_S4_FC_BLOCK FG_S4_FC_BLOCK                                                                          \
        "3:\n\t"                                                                                               \
        FG_S4_FC_BLOCK FG_S4_FC_BLOCK                                                                          \
        "subs r2, r2, #1\n\t"                                                                                  \
        "bne 1b\n\t"                                                                                           \
        STORE                                                                                                  \
        "ldr r12, [lr, #20]\n\t"                                                                               \
        "subs r12, r12, #1\n\t"                                                                                \
        "str r12, [lr, #20]\n\t"                                                                               \
        "bne 2b\n\t"                                                                                           \
        : [job] "+r"(rj)                                                                                       \
        :                                                                                                      \
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")

#define FG_S4_FC_ZERO "movs r10, #0\n\t" "movs r11, #0\n\t"
#define FG_S4_FC_SUMS                             \
    "ldr r12, [lr, #16]\n\t"                      \
    "strd r10, r11, [r12], #8\n\t"                \
    "str r12, [lr, #16]\n\t"

/* The job's sums (weights + 8 . the row), two per pair from job->out on (job->out and count are used up). */
static __attribute__((noinline)) void fg_s4_fc_sums(fg_s4_fc_job *job) {
    register fg_s4_fc_job *rj __asm__("r0") = job;
    FG_S4_FC_LOOP(FG_S4_FC_ZERO, FG_S4_FC_SUMS);
}

#define FG_S4_FC_BIASES                           \
    "ldr r12, [lr, #12]\n\t"                      \
    "ldr r4, [lr, #24]\n\t"                       \
    "ldr r10, [r12, #0]\n\t"                      \
    "ldr r11, [r12, #16]\n\t"                     \
    "sub r10, r10, r4\n\t"                        \
    "sub r11, r11, r4\n\t"
#define FG_S4_FC_OUTPUTS(OUT)                     \
    "ldrd r7, r8, [lr, #12]\n\t"                  \
    "lsl r10, r10, #1\n\t"                        \
    "lsl r11, r11, #1\n\t"                        \
    OUT("r10", 0, 0) OUT("r11", 1, 1)             \
    "add r7, r7, #32\n\t"                         \
    "add r8, r8, #2\n\t"                          \
    "strd r7, r8, [lr, #12]\n\t"

/* Every pair of outputs of the job (all narrow, the clamp all of int8; relu: the zero point -128 too), the output
 * stage of fg_fully_connected_dsp without leaving the assembly. */
static __attribute__((noinline)) void fg_s4_fc_run(fg_s4_fc_job *job, int relu) {
    register fg_s4_fc_job *rj __asm__("r0") = job;
    if (relu) {
        FG_S4_FC_LOOP(FG_S4_FC_BIASES, FG_S4_FC_OUTPUTS(FG_DSP_FC_OUT_RELU));
    } else {
        FG_S4_FC_LOOP(FG_S4_FC_BIASES, FG_S4_FC_OUTPUTS(FG_DSP_FC_OUT));
    }
}
#undef FG_S4_FC_OUTPUTS
#undef FG_S4_FC_BIASES
#undef FG_S4_FC_SUMS
#undef FG_S4_FC_ZERO
#undef FG_S4_FC_LOOP
#undef FG_S4_FC_BLOCK
#undef FG_S4_FC_PAIR

/* fg_dsp_extend(input, depth, pairs, x, 1), returning the sum of the inputs. */
static int32_t fg_s4_fc_extend(const int8_t *input, int32_t depth, int32_t pairs, uint32_t *x) {
    uint32_t sum = 0;
    int32_t k = 0;
    for (; k + 8 <= depth; k += 8, x += 4) {
        uint32_t v0, v1;
        __builtin_memcpy(&v0, input + k, sizeof v0);
        __builtin_memcpy(&v1, input + k + 4, sizeof v1);
        x[0] = __sxtb16(v0);
        x[1] = fg_dsp_odd_s8x2(v0);
        x[2] = __sxtb16(v1);
        x[3] = fg_dsp_odd_s8x2(v1);
        sum = __smlad(__sadd16(__sadd16(x[0], x[1]), __sadd16(x[2], x[3])), 0x00010001u, sum);
    }
    if (k < 2 * pairs) { /* the last inputs and the zeros past them */
        const int32_t tail = pairs - k / 2;
        fg_dsp_extend(input + k, depth - k, tail, x, 1);
        for (int32_t g = 0; g < tail; ++g) {
            sum = __smlad(x[g], 0x00010001u, sum);
        }
    }
    return (int32_t)sum;
}

/* `count` outputs of one row from their sums (any output stage). */
static void fg_s4_fc_outputs(const uint32_t *sums, uint32_t eights, const fg_dsp_channel *ch, int32_t count,
                             const fg_requant_params *q, int8_t *output) {
    const int full = q->activation_min == -128 && q->activation_max == 127;
    for (int32_t k = 0; k < count; ++k) {
        const uint32_t acc = sums[k] + (uint32_t)ch[k].bias - eights;
        output[k] = fg_dsp_requantize(acc, ch + k, ch[k].shift == FG_DSP_WIDE, full, q->activation_min,
                                      q->activation_max, q->output_offset);
    }
}

FG_HOT_LOOP void fg_fully_connected_s4_dsp(const fg_fully_connected_params *p, const int8_t *input,
                                           const int8_t *weights, int8_t *output) {
    const int32_t depth = p->accum_depth, out_c = p->out_depth, passes = (depth + 15) >> 4, pairs = passes << 3;
    const fg_requant_params q = p->requant; /* a local copy: the int8 stores may alias params */
    const int32_t *table = (const int32_t *)p->packed;
    const fg_dsp_channel *ch = (const fg_dsp_channel *)(table + 1);
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    const int fast = q.activation_min == -128 && q.activation_max == 127 && table[0];
    uint32_t x[FG_DSP_FC_MAX_DEPTH / 2], sums[FG_S4_FC_CHUNK];
    (void)weights;
    for (int32_t b = 0; b < p->batches; ++b, input += depth, output += out_c) {
        const uint32_t eights = 8u * (uint32_t)fg_s4_fc_extend(input, depth, pairs, x);
        int32_t c = 0;
        if (fast && out_c >= 2) {
            fg_s4_fc_job job = {x, w, passes, ch, output, out_c >> 1, eights};
            fg_s4_fc_run(&job, q.output_offset == -128);
            c = out_c & ~1;
        }
        for (; c < out_c; c += FG_S4_FC_CHUNK) {
            const int32_t count = out_c - c < FG_S4_FC_CHUNK ? out_c - c : FG_S4_FC_CHUNK;
            fg_s4_fc_job job = {x, w + c * 2 * passes, passes, ch, sums, (count + 1) >> 1, eights};
            fg_s4_fc_sums(&job);
            fg_s4_fc_outputs(sums, eights, ch + c, count, &q, output + c);
        }
    }
}
#endif
