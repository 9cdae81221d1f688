/* FULLY_CONNECTED with 4-bit weights on the DSP extension: the row sign-extended once into input pairs (as
 * fg_fully_connected_dsp), then four outputs at a time, where one SMLAD of a weight word as it is and three of it
 * masked once each (BIC or AND with an immediate) give the four outputs' sums: 7 instructions per 8 products, against
 * 8 when each SMLAD's pair of weights is unpacked by itself.
 *
 * A word holds one input pair's two depths (its low and high halfword) for the four outputs c0..c3 of a group, output
 * k's weight in nibble k of each halfword: + 8 (unsigned) for k < 3, as it is (two's complement) for c3, so that a
 * halfword, as SMLAD reads it (signed), is u0 + 16 u1 + 256 u2 + 4096 w3. Against the input pairs x, over a run of
 * depths, SMLAD of the word gives R = S0 + 16 S1 + 256 S2 + 4096 S3, of the word BIC 0xF000F000 A = S0 + 16 S1 + 256
 * S2, AND 0x00FF00FF B = S0 + 16 S1, AND 0x000F000F C = S0 (Sk the dot product of x and output k's stored weights):
 * S3 = (R - A) / 4096, S2 = (A - B) / 256, S1 = (B - C) / 16, S0 = C, exact while 4096 |S3| < 2^31, so the depth
 * goes in chunks over which 128 x (the sum of |w| of each group's last output) stays below 2^19: the whole row when
 * its weights allow, else 496 depths (dsp_4bit.fc_chunk). Outputs 0..2 of a group then take off 8 x (the sum of the
 * row) for their stored + 8. A row of one chunk whose channels are all narrow, the clamp all of int8, is split and
 * requantized in the assembly (fg_fully_connected_dsp's output stage); otherwise the sums are split chunk by chunk
 * and requantized in C.
 *
 * params->packed: one word, 1 when every channel is narrow, one the chunk's passes of 16 depths, then
 * fg_dsp_channel[out_depth] (the int8 variants' output stage, dsp.channel_constants), then per chunk of depths (the
 * depth rounded up to 16, zero weights past it), per group of four outputs (out_depth rounded up to 4 with zero
 * weights), per 8 depths the words of input pairs (x0, x2), (x1, x3), (x4, x6), (x5, x7) (as fg_dsp_extend lays them
 * out) (firmware_gen/ops/variants/dsp_4bit.py). Weight bytes: TFLite's ceil(n / 2) when the depth is a multiple of 16
 * and out_depth of 4. */
#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp.h"

#define FG_S4_FC_GROUPS 8        /* groups of four outputs whose sums one run leaves on the stack */

/* What fg_s4_fc_sums and fg_s4_fc_run read (offsets fixed in their assembly). */
typedef struct {
    const uint32_t *x;         /* 0: the chunk's input pairs */
    const uint32_t *w;         /* 4: the first group's words for the chunk (the next groups' follow) */
    int32_t passes;            /* 8: passes of 16 depths, 1 .. the chunk's */
    const fg_dsp_channel *ch;  /* 12: fg_s4_fc_run: the first group's constants (used up) */
    void *out;                 /* 16: per group R, A, B, C (fg_s4_fc_sums) or the outputs (fg_s4_fc_run) (used up) */
    int32_t count;             /* 20: groups, >= 1 (used up) */
    uint32_t eights;           /* 24: fg_s4_fc_run: 8 x the row's sum */
} fg_s4_fc_job;

/* Input pair x (r4-r7) against the word w: R, A, B, C into r10, r11, r12, lr. */
#define FG_S4_FC_WORD(w, x)                       \
    "smlad r10, " w ", " x ", r10\n\t"            \
    "bic r3, " w ", #0xF000F000\n\t"              \
    "smlad r11, r3, " x ", r11\n\t"               \
    "and r3, " w ", #0x00FF00FF\n\t"              \
    "smlad r12, r3, " x ", r12\n\t"               \
    "and r3, " w ", #0x000F000F\n\t"              \
    "smlad lr, r3, " x ", lr\n\t"
/* 8 depths of a group: 31 instructions per 32 products. */
#define FG_S4_FC_BLOCK                            \
    "ldm r0!, {r4-r7}\n\t"                        \
    "ldrd r8, r9, [r1], #8\n\t"                   \
    FG_S4_FC_WORD("r8", "r4") FG_S4_FC_WORD("r9", "r5")                            \
    "ldrd r8, r9, [r1], #8\n\t"                   \
    FG_S4_FC_WORD("r8", "r6") FG_S4_FC_WORD("r9", "r7")

/* Per group of the job at [sp]: R, A, B, C in r10, r11, r12, lr over the passes (32 depths a loop, an odd count of
 * 16-depth passes entering it half way), then STORE (r0 r2-r9 free, r1 the
 * next group's words), then on to the next group. */
#define FG_S4_FC_LOOP(STORE)                                                                                   \
    __asm__ volatile(                                                                                          \
        "push {%[job]}\n\t"                                                                                    \
        "ldr r1, [%[job], #4]\n"                                                                               \
        "2:\n\t"                                                                                               \
        "ldr r2, [sp]\n\t"                                                                                     \
        "ldr r0, [r2, #0]\n\t"                                                                                 \
        "mov r10, #0\n\t"                                                                                      \
        "mov r11, #0\n\t"                                                                                      \
        "mov r12, #0\n\t"                                                                                      \
        "mov lr, #0\n\t"                                                                                       \
        "ldr r2, [r2, #8]\n\t"                                                                                 \
        "lsrs r2, r2, #1\n\t"                                                                                  \
        "adc r2, r2, #0\n\t"                                                                                   \
        "bcs 3f\n"                                                                                              \
        "1:\n\t"                                                                                               \
        FG_S4_FC_BLOCK FG_S4_FC_BLOCK                                                                          \
        "3:\n\t"                                                                                               \
        FG_S4_FC_BLOCK FG_S4_FC_BLOCK                                                                          \
        "subs r2, r2, #1\n\t"                                                                                  \
        "bne 1b\n\t"                                                                                           \
        "ldr r2, [sp]\n\t"                                                                                     \
        STORE                                                                                                  \
        "ldr r3, [r2, #20]\n\t"                                                                                \
        "subs r3, r3, #1\n\t"                                                                                  \
        "str r3, [r2, #20]\n\t"                                                                                \
        "bne 2b\n\t"                                                                                           \
        "add sp, sp, #4\n\t"                                                                                   \
        : [job] "+r"(rj)                                                                                       \
        :                                                                                                      \
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr", "cc", "memory")

#define FG_S4_FC_SUMS                             \
    "ldr r3, [r2, #16]\n\t"                       \
    "stmia r3!, {r10, r11, r12, lr}\n\t"          \
    "str r3, [r2, #16]\n\t"

/* R, A, B, C of every group of the job, one group after the other. */
static __attribute__((noinline)) void fg_s4_fc_sums(fg_s4_fc_job *job) {
    register fg_s4_fc_job *rj __asm__("r0") = job;
    FG_S4_FC_LOOP(FG_S4_FC_SUMS);
}

/* Output k's accumulator of a group (its bias at [r7, #16k], r3 = 8 x the row's sum taken off outputs 0..2) from its
 * sum: acc = bias (- r3) + (sum register shifted), doubled. */
#define FG_S4_FC_ACC(acc, k, less, shift)         \
    "ldr r4, [r7, #" #k " * 16]\n\t"              \
    less                                          \
    "add " acc ", r4, " acc shift "\n\t"          \
    "lsl " acc ", " acc ", #1\n\t"
#define FG_S4_FC_OUTPUTS                                                                  \
    "sub r10, r10, r11\n\t"                                                               \
    "sub r11, r11, r12\n\t"                                                               \
    "sub r12, r12, lr\n\t"                                                                \
    "ldrd r7, r8, [r2, #12]\n\t"                                                          \
    "ldr r3, [r2, #24]\n\t"                                                               \
    FG_S4_FC_ACC("lr", 0, "sub r4, r4, r3\n\t", "")                                       \
    FG_S4_FC_ACC("r12", 1, "sub r4, r4, r3\n\t", ", asr #4")                              \
    FG_S4_FC_ACC("r11", 2, "sub r4, r4, r3\n\t", ", asr #8")                              \
    FG_S4_FC_ACC("r10", 3, "", ", asr #12")                                               \
    FG_DSP_FC_OUT("lr", 0, 0) FG_DSP_FC_OUT("r12", 1, 1) FG_DSP_FC_OUT("r11", 2, 2)       \
    FG_DSP_FC_OUT("r10", 3, 3)                                                            \
    "add r7, r7, #64\n\t"                                                                 \
    "add r8, r8, #4\n\t"                                                                  \
    "strd r7, r8, [r2, #12]\n\t"

/* Every group of the job's (a single chunk, all narrow, the clamp all of int8) outputs, split and requantized
 * without leaving the assembly (fg_fully_connected_dsp's output stage). */
static __attribute__((noinline)) void fg_s4_fc_run(fg_s4_fc_job *job) {
    register fg_s4_fc_job *rj __asm__("r0") = job;
    FG_S4_FC_LOOP(FG_S4_FC_OUTPUTS);
}
#undef FG_S4_FC_OUTPUTS
#undef FG_S4_FC_ACC
#undef FG_S4_FC_SUMS
#undef FG_S4_FC_LOOP
#undef FG_S4_FC_BLOCK
#undef FG_S4_FC_WORD

/* The four outputs' sums of `groups` groups from their R, A, B, C, added to out. */
static void fg_s4_fc_split(const uint32_t *sums, int32_t groups, uint32_t *out) {
    for (int32_t g = 0; g < groups; ++g, sums += 4, out += 4) {
        out[0] += sums[3];
        out[1] += (uint32_t)((int32_t)(sums[2] - sums[3]) >> 4);
        out[2] += (uint32_t)((int32_t)(sums[1] - sums[2]) >> 8);
        out[3] += (uint32_t)((int32_t)(sums[0] - sums[1]) >> 12);
    }
}

/* fg_dsp_extend(input, depth, pairs, x, 1), returning the sum of the inputs: 13 instructions per 8 inputs. */
static int32_t fg_s4_fc_extend(const int8_t *input, int32_t depth, int32_t pairs, uint32_t *x) {
    const int32_t whole = depth & ~7;
    const int8_t *from = input, *const end = input + whole;
    uint32_t sum = 0, *to = x;
    if (whole > 0) {
        __asm__ volatile("1:\n\t"
                         "ldr r4, [%[f]], #4\n\t"
                         "ldr r6, [%[f]], #4\n\t"
                         "sxtb16 r5, r4, ror #8\n\t"
                         "sxtb16 r4, r4\n\t"
                         "sxtb16 r7, r6, ror #8\n\t"
                         "sxtb16 r6, r6\n\t"
                         "stmia %[t]!, {r4-r7}\n\t"
                         "sadd16 r4, r4, r5\n\t"
                         "sadd16 r6, r6, r7\n\t"
                         "sadd16 r4, r4, r6\n\t"
                         "smlad %[s], r4, %[ones], %[s]\n\t"
                         "cmp %[f], %[end]\n\t"
                         "bne 1b\n\t"
                         : [f] "+r"(from), [t] "+r"(to), [s] "+r"(sum)
                         : [end] "r"(end), [ones] "r"(0x00010001u)
                         : "r4", "r5", "r6", "r7", "cc", "memory");
    }
    if (whole < 2 * pairs) { /* the last inputs and the zeros past them */
        const int32_t tail = pairs - whole / 2;
        fg_dsp_extend(input + whole, depth - whole, tail, x + whole / 2, 1);
        for (int32_t g = 0; g < tail; ++g) {
            sum = __smlad(x[whole / 2 + g], 0x00010001u, sum);
        }
    }
    return (int32_t)sum;
}

/* The accumulators of `count` outputs, the first of a group, before their sums: each bias, less 8 x the row's sum
 * for outputs 0..2 of a group (their weights stored + 8); zero for the padding outputs up to a whole group. */
static void fg_s4_fc_biases(const fg_dsp_channel *ch, int32_t count, uint32_t eights, uint32_t *acc) {
    int32_t k = 0;
    for (; k < count; ++k) {
        acc[k] = (uint32_t)ch[k].bias - ((k & 3) == 3 ? 0u : eights);
    }
    for (; k & 3; ++k) {
        acc[k] = 0;
    }
}

/* `count` outputs of one row from their accumulators; narrow: no channel is wide. */
static void fg_s4_fc_outputs(const uint32_t *acc, const fg_dsp_channel *ch, int32_t count, const fg_requant_params *q,
                             int narrow, int8_t *output) {
    if (narrow && q->activation_min == -128 && q->activation_max == 127) {
        for (int32_t k = 0; k < count; ++k) {
            output[k] = (int8_t)__ssat(fg_dsp_narrow(acc[k], ch[k].multiplier, ch[k].offset, ch[k].shift), 8);
        }
        return;
    }
    for (int32_t k = 0; k < count; ++k) {
        output[k] = fg_dsp_requantize(acc[k], ch + k, ch[k].shift == FG_DSP_WIDE, 0, q->activation_min,
                                      q->activation_max, q->output_offset);
    }
}

FG_HOT_LOOP void fg_fully_connected_s4_dsp(const fg_fully_connected_params *p, const int8_t *input,
                                           const int8_t *weights, int8_t *output) {
    const int32_t depth = p->accum_depth, out_c = p->out_depth, passes = (depth + 15) >> 4, pairs = passes << 3;
    const int32_t groups = (out_c + 3) >> 2;
    const fg_requant_params q = p->requant; /* a local copy: the int8 stores may alias params */
    const int32_t *table = (const int32_t *)p->packed;
    const int32_t chunk_passes = table[1];
    const fg_dsp_channel *ch = (const fg_dsp_channel *)(table + 2);
    const uint32_t *w = (const uint32_t *)(ch + out_c);
    const int fast = table[0] && q.activation_min == -128 && q.activation_max == 127;
    uint32_t x[FG_DSP_FC_MAX_DEPTH / 2], split[4 * FG_S4_FC_GROUPS], sums[4 * FG_S4_FC_GROUPS];
    (void)weights;
    for (int32_t b = 0; b < p->batches; ++b, input += depth, output += out_c) {
        const uint32_t eights = 8u * (uint32_t)fg_s4_fc_extend(input, depth, pairs, x);
        int32_t g = 0;
        if (fast && passes <= chunk_passes && out_c >= 4) {
            fg_s4_fc_job job = {x, w, passes, ch, output, out_c >> 2, eights};
            fg_s4_fc_run(&job);
            g = out_c >> 2;
        }
        for (; g < groups; g += FG_S4_FC_GROUPS) {
            const int32_t count = groups - g < FG_S4_FC_GROUPS ? groups - g : FG_S4_FC_GROUPS;
            const int32_t outputs = out_c - 4 * g < 4 * count ? out_c - 4 * g : 4 * count;
            fg_s4_fc_biases(ch + 4 * g, outputs, eights, sums);
            for (int32_t pass = 0; pass < passes; pass += chunk_passes) {
                const int32_t chunk = passes - pass < chunk_passes ? passes - pass : chunk_passes;
                fg_s4_fc_job job = {x + 8 * pass, w + 8 * (pass * groups + g * chunk), chunk, ch, split, count, 0};
                fg_s4_fc_sums(&job);
                fg_s4_fc_split(split, count, sums);
            }
            fg_s4_fc_outputs(sums, ch + 4 * g, outputs, &q, table[0], output + 4 * g);
        }
    }
}
#endif
