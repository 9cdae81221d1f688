/* Two outputs per multiply on Armv6-M: the loop of the paired fully-connected and convolution variants
 * (firmware_gen/ops/variants/armv6m_paired.py).
 *
 * MULS keeps the low 32 bits of its product, so one multiply of an input x by the word W = w1 + 2^16 w2 (two
 * outputs' weights) adds both products to a register: after a block of L inputs it holds P1 + 2^16 P2 (mod 2^32),
 * P1 and P2 the two outputs' partial dot products. The generator chooses L per pair of outputs so that every block's
 * P1 and P2 stay within int16 for any int8 inputs; the block's register starts at 2^15, so that P1 + 2^15 is its low
 * half, unsigned, and its arithmetic shift right by 16 is P2 exactly. Per block, the shifted register is added to the
 * pair's second sum and the whole register to the first (mod 2^32): at the end the first holds
 * sum1 + 2^16 sum2 (the 2^15 of each block taken off by the generator in the starting value), and
 * sum1 = first - (second << 16).
 *
 * The inputs (a row, a pixel's window) are widened to int32 on the stack by the caller (zeros after the last, to a
 * multiple of 16), so that one LDM fetches two; the steps of a block: LDM two inputs, LDM two weight words, two
 * MULS, two ADDS (1.5 instructions per multiply-accumulate), then three to fold the block in. params->packed: the output stage's
 * constants (fg_armv6m_layer, fg_armv6m_channel per output), then a record per pair of outputs (an odd last output
 * paired with a zero one): its entry into the loop of its block length (fg_armv6m_pairs_s8), the bytes of inputs its blocks read
 * (4 x its depth rounded up to its block length), the two sums' starting values, then one word per input (zeros to
 * the rounded depth). */
#include "fg/isa/armv6m.h"
#include "fg/support/hot_loop.h"

#define FG_PAIRED_CHUNK 32 /* outputs summed, then requantized, at a time (even: a pair never straddles two) */

/* The pairs' sums from run->record on into run->acc, up to run->end (two words a pair); returns the record after
 * the last. */
typedef struct {
    const int32_t *x; /* the widened inputs */
    const int32_t *record;
    int32_t *acc;
    int32_t *end;
} fg_armv6m_pair_run;

#if defined(__ARM_ARCH_6M__)
#include "fg/isa/armv6m_asm.h"

/* Registers: r0 the inputs, r1 the weights, r2 r3 two inputs, r4 r5 two weights (then products), r6 the block's
 * register, r7 2^15; r8 the first sum, r9 the second, r10 the pair's end of inputs, r11 the inputs' start, r12 the
 * sums out, lr their end. */
#define FG_PAIR_PRODUCTS "ldm r0!, {r2, r3}\n\tldm r1!, {r4, r5}\n\tmuls r4, r2, r4\n\tmuls r5, r3, r5\n\t"
#define FG_PAIR_FIRST FG_PAIR_PRODUCTS "adds r6, r4, r7\n\tadds r6, r6, r5\n\t"
#define FG_PAIR_STEP FG_PAIR_PRODUCTS "adds r6, r6, r4\n\tadds r6, r6, r5\n\t"
#define FG_PAIR_FOLD "asrs r4, r6, #16\n\tadd r9, r4\n\tadd r8, r6\n\t"
#define FG_PAIR_STEPS3 FG_PAIR_STEP FG_PAIR_STEP FG_PAIR_STEP
#define FG_PAIR_STEPS7 FG_PAIR_STEPS3 FG_PAIR_STEPS3 FG_PAIR_STEP
/* One block of 16, 8, 4 or 2 inputs, entered at its label. */
#define FG_BLOCK16(label) label ":\n\t" FG_PAIR_FIRST FG_PAIR_STEPS7 FG_PAIR_FOLD
#define FG_BLOCK8(label) label ":\n\t" FG_PAIR_FIRST FG_PAIR_STEPS3 FG_PAIR_FOLD
#define FG_BLOCK4(label) label ":\n\t" FG_PAIR_FIRST FG_PAIR_STEP FG_PAIR_FOLD
#define FG_BLOCK2(label) label ":\n\t" FG_PAIR_FIRST FG_PAIR_FOLD
/* A pass of 16 inputs, then back to its first block until the pair's inputs end. */
#define FG_PASS_END(first) "cmp r0, r10\n\tbne " first "\n\tb 40f\n\t"

/* Each length's pass of 16 inputs is entered at the block a pair's record names (its entry: 0 for 16, 1 + the
 * blocks skipped for 8, 3 + for 4, 7 + for 2), so that the pass's blocks run the pair's count of them. */
__attribute__((naked)) static const int32_t *fg_armv6m_pairs_s8(__attribute__((unused)) fg_armv6m_pair_run *run) {
    __asm__ volatile(
        ".syntax unified\n\t"
        FG_SAVE_ALL
        "ldm r0, {r0, r1, r2, r3}\n\t"
        "mov r11, r0\n\tmov r12, r2\n\tmov lr, r3\n\t"
        "movs r7, #128\n\tlsls r7, r7, #8\n\t"
        "1:\n\t"
        "ldm r1!, {r3, r4, r5, r6}\n\t"     /* entry, bytes of inputs, the two sums' starts */
        "mov r8, r5\n\tmov r9, r6\n\t"
        "mov r0, r11\n\tadds r4, r0, r4\n\tmov r10, r4\n\t"
        "adr r2, .Lfg_pair_entries\n\tlsls r3, r3, #2\n\tldr r3, [r2, r3]\n\tmov pc, r3\n\t"
        FG_BLOCK16(".Lfg_pair16_0") FG_PASS_END(".Lfg_pair16_0")
        FG_BLOCK8(".Lfg_pair8_0") FG_BLOCK8(".Lfg_pair8_1") FG_PASS_END(".Lfg_pair8_0")
        FG_BLOCK4(".Lfg_pair4_0") FG_BLOCK4(".Lfg_pair4_1") FG_BLOCK4(".Lfg_pair4_2") FG_BLOCK4(".Lfg_pair4_3")
        FG_PASS_END(".Lfg_pair4_0")
        FG_BLOCK2(".Lfg_pair2_0") FG_BLOCK2(".Lfg_pair2_1") FG_BLOCK2(".Lfg_pair2_2") FG_BLOCK2(".Lfg_pair2_3")
        FG_BLOCK2(".Lfg_pair2_4") FG_BLOCK2(".Lfg_pair2_5") FG_BLOCK2(".Lfg_pair2_6") FG_BLOCK2(".Lfg_pair2_7")
        "cmp r0, r10\n\tbne .Lfg_pair2_0\n\t"
        "40:\n\t"
        "mov r5, r9\n\tlsls r6, r5, #16\n\tmov r4, r8\n\tsubs r4, r4, r6\n\t"
        "mov r2, r12\n\tstm r2!, {r4, r5}\n\tmov r12, r2\n\t"
        "cmp r2, lr\n\tbeq 41f\n\tb 1b\n\t"
        "41:\n\t"
        "movs r0, r1\n\t"
        FG_RESTORE_ALL
        ".balign 4\n\t"
        ".Lfg_pair_entries:\n\t"
        ".word .Lfg_pair16_0, .Lfg_pair8_0, .Lfg_pair8_1, .Lfg_pair4_0, .Lfg_pair4_1, .Lfg_pair4_2, .Lfg_pair4_3\n\t"
        ".word .Lfg_pair2_0, .Lfg_pair2_1, .Lfg_pair2_2, .Lfg_pair2_3, .Lfg_pair2_4, .Lfg_pair2_5, .Lfg_pair2_6\n\t"
        ".word .Lfg_pair2_7\n\t");
}

/* x[i] = input[i], i < depth, then zeros up to x + padded: four bytes (LDRB, SXTB) and one STM a pass. */
__attribute__((naked)) void fg_armv6m_widen(__attribute__((unused)) int32_t *x,
                                                   __attribute__((unused)) const int8_t *input,
                                                   __attribute__((unused)) int32_t depth,
                                                   __attribute__((unused)) int32_t padded) {
    __asm__ volatile(
        ".syntax unified\n\t"
        "push {r4-r7, lr}\n\t"
        "lsls r3, r3, #2\n\tadds r3, r0, r3\n\t"         /* the end of x */
        "lsrs r4, r2, #2\n\tlsls r4, r4, #2\n\tadds r4, r1, r4\n\tmov r12, r4\n\t" /* the last whole four */
        "adds r2, r1, r2\n\t"                                /* the end of the input */
        "b 2f\n\t"
        "1:\n\t"
        "ldrb r4, [r1, #0]\n\tldrb r5, [r1, #1]\n\tldrb r6, [r1, #2]\n\tldrb r7, [r1, #3]\n\t"
        "sxtb r4, r4\n\tsxtb r5, r5\n\tsxtb r6, r6\n\tsxtb r7, r7\n\t"
        "stm r0!, {r4-r7}\n\tadds r1, r1, #4\n\t"
        "2:\n\tcmp r1, r12\n\tbne 1b\n\t"
        "movs r5, #0\n\t"
        "b 4f\n\t"
        "3:\n\tldrsb r4, [r1, r5]\n\tstm r0!, {r4}\n\tadds r1, r1, #1\n\t"
        "4:\n\tcmp r1, r2\n\tbne 3b\n\t"
        "b 6f\n\t"
        "5:\n\tstm r0!, {r5}\n\t"
        "6:\n\tcmp r0, r3\n\tbne 5b\n\t"
        "pop {r4-r7, pc}\n\t");
}
#else
/* The same sums in C, for the host build of the kernels' tests. */
static const int32_t *fg_armv6m_pairs_s8(fg_armv6m_pair_run *run) {
    const int32_t *record = run->record;
    for (int32_t *acc = run->acc; acc != run->end; acc += 2) {
        const int32_t entry = record[0], inputs = record[1] / 4;
        const int32_t length = entry == 0 ? 16 : entry < 3 ? 8 : entry < 7 ? 4 : 2;
        uint32_t first = (uint32_t)record[2], second = (uint32_t)record[3];
        const int32_t *w = record + 4;
        for (int32_t k = 0; k < inputs; k += length) {
            uint32_t r = 1u << 15;
            for (int32_t i = k; i < k + length; ++i) {
                r += (uint32_t)run->x[i] * (uint32_t)w[i];
            }
            second += (uint32_t)((int32_t)r >> 16);
            first += r;
        }
        acc[0] = (int32_t)(first - (second << 16));
        acc[1] = (int32_t)second;
        record = w + inputs;
    }
    return record;
}

void fg_armv6m_widen(int32_t *x, const int8_t *input, int32_t depth, int32_t padded) {
    for (int32_t i = 0; i < padded; ++i) {
        x[i] = i < depth ? input[i] : 0;
    }
}
#endif

FG_HOT_LOOP void fg_armv6m_paired_outputs(const int32_t *x, const void *packed, int32_t out_c,
                                          const fg_requant_params *q, int8_t *output) {
    const fg_armv6m_layer *layer = packed;
    const fg_armv6m_channel *channels = fg_armv6m_channels(packed);
    int32_t acc[FG_PAIRED_CHUNK];
    fg_armv6m_pair_run run = {x, (const int32_t *)(const void *)(channels + out_c), acc, acc};
    for (int32_t first = 0; first < out_c; first += FG_PAIRED_CHUNK) {
        const int32_t count = out_c - first < FG_PAIRED_CHUNK ? out_c - first : FG_PAIRED_CHUNK;
        run.end = acc + ((count + 1) & ~1);
        run.acc = acc;
        run.record = fg_armv6m_pairs_s8(&run);
        if (layer->served == FG_ARMV6M_POSITIVE) {
            fg_armv6m_requantize_pixels_positive_s8(acc, 1, channels + first, output + first, layer, count, count);
        } else {
            fg_armv6m_outputs_s8(q, packed, acc, first, count, output + first);
        }
    }
}
