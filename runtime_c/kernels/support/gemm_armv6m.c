/* The Armv6-M dot-product loop and the window of the convolution and fully-connected variants (fg/isa/armv6m.h).
 * The loop is Thumb-1 assembly: GCC keeps neither the eight sums nor the pointers in registers for it. */
#include "fg/isa/armv6m.h"
#include "fg/isa/armv6m_asm.h"
#include "fg/support/hot_loop.h"

#if defined(__ARM_ARCH_6M__)
/* r0 = x, r1 = n, r2 = the group, r3 = acc (kept on the stack meanwhile; acc[0] the sum to start from less the
 * biases). */
__attribute__((naked)) void fg_armv6m_dot8(__attribute__((unused)) const int8_t *x, __attribute__((unused)) int32_t n,
                                           __attribute__((unused)) const uint8_t *w,
                                           __attribute__((unused)) int32_t acc[FG_ARMV6M_GROUP]) {
    __asm__ volatile(
        ".syntax unified\n\t"
        FG_SAVE_ALL
        "push {r3}\n\t"
        "ldr r4, [r3]\n\t"
        FG_DOT8_S8
        "pop {r3}\n\t"
        FG_STORE8
        FG_RESTORE_ALL);
}

__attribute__((naked)) void fg_armv6m_dot8_s4(__attribute__((unused)) const int8_t *x,
                                              __attribute__((unused)) int32_t n,
                                              __attribute__((unused)) const uint8_t *w,
                                              __attribute__((unused)) int32_t acc[FG_ARMV6M_GROUP]) {
    __asm__ volatile(
        ".syntax unified\n\t"
        FG_SAVE_ALL
        "push {r3}\n\t"
        "ldr r4, [r3]\n\t"
        FG_DOT8_S4
        "pop {r3}\n\t"
        FG_STORE8_S4
        FG_RESTORE_ALL);
}

/* Registers saved, the layer's clamp (the fifth argument) in r9 and r10. */
#define FG_REQUANTIZE_ENTER                                                 \
    ".syntax unified\n\t"                                                  \
    FG_SAVE_ALL                                                            \
    "ldr r4, [sp, #36]\n\t"                                                \
    "ldr r5, [r4, #8]\n\tmov r9, r5\n\t"                                  \
    "ldr r5, [r4, #12]\n\tmov r10, r5\n\t"

/* r0 = acc, r1 = count, r2 = channel, r3 = output, the layer on the stack. */
__attribute__((naked)) void fg_armv6m_requantize_s8(__attribute__((unused)) const int32_t *acc,
                                                    __attribute__((unused)) int32_t count,
                                                    __attribute__((unused)) const fg_armv6m_channel *channel,
                                                    __attribute__((unused)) int8_t *output,
                                                    __attribute__((unused)) const fg_armv6m_layer *layer) {
    __asm__ volatile(
        FG_REQUANTIZE_ENTER
        "adds r1, r3, r1\n\tmov r11, r1\n\t"
        "mov r1, r2\n\t"
        "mov r2, r3\n\t"
        FG_REQUANTIZE
        FG_RESTORE_ALL);
}

/* r0 = acc, r1 = pixels, r2 = channel, r3 = output, the layer, the count and the step on the stack; per pixel, the
 * count's outputs (requantize) from the first channel again, then the output on by step - count bytes. Beside the
 * output stage's registers: step - count in r8, the count in lr, the pixels left in r12. */
#define FG_REQUANTIZE_PIXELS(requantize)                                    \
    FG_REQUANTIZE_ENTER                                                    \
    "ldr r5, [sp, #40]\n\tmov lr, r5\n\t"                                   \
    "ldr r4, [sp, #44]\n\tsubs r4, r4, r5\n\tmov r8, r4\n\t"                \
    "mov r12, r1\n\t"                                                      \
    "push {r2}\n\t"                      /* [sp]: the first channel */      \
    "mov r2, r3\n\t"                                                       \
    "30:\n\t"                                                              \
    "ldr r1, [sp]\n\tmov r4, lr\n\tadds r4, r2, r4\n\tmov r11, r4\n\t"       \
    requantize                                                             \
    "add r2, r8\n\t"                                                       \
    "mov r4, r12\n\tsubs r4, r4, #1\n\tmov r12, r4\n\tbne 30b\n\t"           \
    "add sp, sp, #4\n\t"                                                   \
    FG_RESTORE_ALL

__attribute__((naked)) void fg_armv6m_requantize_pixels_s8(__attribute__((unused)) const int32_t *acc,
                                                           __attribute__((unused)) int32_t pixels,
                                                           __attribute__((unused)) const fg_armv6m_channel *channel,
                                                           __attribute__((unused)) int8_t *output,
                                                           __attribute__((unused)) const fg_armv6m_layer *layer,
                                                           __attribute__((unused)) int32_t count,
                                                           __attribute__((unused)) int32_t step) {
    __asm__ volatile(FG_REQUANTIZE_PIXELS(FG_REQUANTIZE));
}

__attribute__((naked)) void fg_armv6m_requantize_pixels_positive_s8(
    __attribute__((unused)) const int32_t *acc, __attribute__((unused)) int32_t pixels,
    __attribute__((unused)) const fg_armv6m_channel *channel, __attribute__((unused)) int8_t *output,
    __attribute__((unused)) const fg_armv6m_layer *layer, __attribute__((unused)) int32_t count,
    __attribute__((unused)) int32_t step) {
    __asm__ volatile(FG_REQUANTIZE_PIXELS(FG_REQUANTIZE_POSITIVE));
}
#else
/* The same in C, for the host build of the kernels' tests. */
void fg_armv6m_requantize_s8(const int32_t *acc, int32_t count, const fg_armv6m_channel *channel, int8_t *output,
                             const fg_armv6m_layer *layer) {
    for (int32_t j = 0; j < count; ++j) {
        const fg_armv6m_channel *ch = channel + j;
        const int32_t a = acc[j];
        int32_t v;
        if (a < ch->below) {
            v = layer->low;
        } else if (a > ch->above) {
            v = layer->high;
        } else {
            const int32_t ah = a >> 16;
            const uint32_t al = (uint32_t)a & 0xFFFFu, ml = (uint32_t)ch->ml, mh = (uint32_t)ch->mh;
            const int32_t high = ah * ch->mh;
            const uint32_t u = ((al * ml) >> 16) + (uint32_t)(ah * ch->ml) + al * mh + (uint32_t)ch->k -
                               (high < 0 ? 0x8000u : 0u);
            v = (high + (((int32_t)u) >> 16) + ch->c) >> ch->shift;
        }
        output[j] = (int8_t)v;
    }
}

/* acc[j] = acc[0] + the group's bias j; the group's weights after the biases. */
static const uint8_t *fg_armv6m_start(const uint8_t *group, int32_t acc[FG_ARMV6M_GROUP]) {
    const int32_t *bias = (const int32_t *)(const void *)group;
    const uint32_t start = (uint32_t)acc[0];
    for (int32_t j = 0; j < FG_ARMV6M_GROUP; ++j) {
        acc[j] = (int32_t)(start + (uint32_t)bias[j]);
    }
    return group + FG_ARMV6M_GROUP * sizeof(int32_t);
}

void fg_armv6m_requantize_pixels_s8(const int32_t *acc, int32_t pixels, const fg_armv6m_channel *channel,
                                    int8_t *output, const fg_armv6m_layer *layer, int32_t count, int32_t step) {
    for (int32_t i = 0; i < pixels; ++i) {
        fg_armv6m_requantize_s8(acc + i * count, count, channel, output + i * step, layer);
    }
}

void fg_armv6m_requantize_pixels_positive_s8(const int32_t *acc, int32_t pixels, const fg_armv6m_channel *channel,
                                             int8_t *output, const fg_armv6m_layer *layer, int32_t count,
                                             int32_t step) {
    fg_armv6m_requantize_pixels_s8(acc, pixels, channel, output, layer, count, step);
}

/* The same sums in C, for the host build of the kernels' tests. */
void fg_armv6m_dot8(const int8_t *x, int32_t n, const uint8_t *w, int32_t acc[FG_ARMV6M_GROUP]) {
    w = fg_armv6m_start(w, acc);
    for (int32_t k = 0; k < n; ++k) {
        for (int32_t j = 0; j < FG_ARMV6M_GROUP; ++j) {
            acc[j] = (int32_t)((uint32_t)acc[j] + (uint32_t)(x[k] * w[FG_ARMV6M_GROUP * k + j]));
        }
    }
}

/* The same 4-bit sums in C. */
void fg_armv6m_dot8_s4(const int8_t *x, int32_t n, const uint8_t *w, int32_t acc[FG_ARMV6M_GROUP]) {
    w = fg_armv6m_start(w, acc);
    for (int32_t k = 0; k < n; ++k) {
        for (int32_t j = 0; j < FG_ARMV6M_GROUP / 2; ++j) {
            const int32_t byte = w[FG_ARMV6M_GROUP / 2 * k + j];
            acc[2 * j] = (int32_t)((uint32_t)acc[2 * j] + (uint32_t)(x[k] * (byte & 15)));
            acc[2 * j + 1] = (int32_t)((uint32_t)acc[2 * j + 1] + (uint32_t)(x[k] * (byte >> 4)));
        }
    }
}
#endif

void fg_armv6m_outputs_s8(const fg_requant_params *q, const void *packed, const int32_t *acc, int32_t first,
                          int32_t count, int8_t *output) {
    const fg_armv6m_layer *layer = packed;
    const fg_armv6m_channel *channels = fg_armv6m_channels(packed);
    if (layer->served) {
        fg_armv6m_requantize_s8(acc, count, channels + first, output, layer);
        return;
    }
    int32_t j = 0;
    while (j < count) {
        if (channels[first + j].shift < 0) {
            output[j] = fg_requantize_channel_s8(q, acc[j], first + j);
            ++j;
            continue;
        }
        int32_t end = j + 1;
        while (end < count && channels[first + end].shift >= 0) {
            ++end;
        }
        fg_armv6m_requantize_s8(acc + j, end - j, channels + first + j, output + j, layer);
        j = end;
    }
}

typedef uint32_t fg_bytes4 __attribute__((may_alias)); /* four int8 read as one word */

#if defined(__ARM_ARCH_6M__)
/* The 16-bit halves of sum_{i < words} (v_i & 0xFF00FF) + ((v_i >> 8) & 0xFF00FF), v_i = word[i] ^ 0x80808080
 * (1 <= words <= 128: each half stays below 2^16): 7 instructions a word, two words a pass. */
static __attribute__((naked)) uint32_t fg_byte_halves(__attribute__((unused)) const fg_bytes4 *word,
                                                      __attribute__((unused)) int32_t words) {
    __asm__ volatile(
        ".syntax unified\n\t"
        "push {r4-r6, lr}\n\t"
        "ldr r4, =0x80808080\n\t"
        "ldr r5, =0x00FF00FF\n\t"
        "movs r2, #0\n\t"
        "lsrs r1, r1, #1\n\tbcc 2f\n\t"      /* an odd word first */
        "ldm r0!, {r3}\n\teors r3, r4\n\tlsrs r6, r3, #8\n\tands r3, r5\n\tands r6, r5\n\t"
        "adds r2, r2, r3\n\tadds r2, r2, r6\n\t"
        "2:\n\t"
        "cmp r1, #0\n\tbeq 3f\n\t"
        "1:\n\t"
        "ldm r0!, {r3}\n\teors r3, r4\n\tlsrs r6, r3, #8\n\tands r3, r5\n\tands r6, r5\n\t"
        "adds r2, r2, r3\n\tadds r2, r2, r6\n\t"
        "ldm r0!, {r3}\n\teors r3, r4\n\tlsrs r6, r3, #8\n\tands r3, r5\n\tands r6, r5\n\t"
        "adds r2, r2, r3\n\tadds r2, r2, r6\n\t"
        "subs r1, r1, #1\n\tbne 1b\n\t"
        "3:\n\t"
        "movs r0, r2\n\t"
        "pop {r4-r6, pc}\n\t"
        ".ltorg\n\t");
}
#else
static uint32_t fg_byte_halves(const fg_bytes4 *word, int32_t words) {
    uint32_t halves = 0;
    for (int32_t i = 0; i < words; ++i) {
        const uint32_t v = word[i] ^ 0x80808080u;
        halves += (v & 0x00FF00FFu) + ((v >> 8) & 0x00FF00FFu);
    }
    return halves;
}
#endif

/* The sum of n signed bytes, four at a time where they are word-aligned: each byte flipped to x + 128 (unsigned), the
 * even and odd bytes summed in the two 16-bit halves of a word (fg_byte_halves), then 128 n taken off. */
static FG_HOT_LOOP int32_t fg_sum_s8(const int8_t *x, int32_t n) {
    int32_t sum = 0;
    while (n > 0 && ((uintptr_t)x & 3u) != 0) {
        sum += *x++;
        --n;
    }
    const fg_bytes4 *word = (const fg_bytes4 *)(const void *)x;
    for (int32_t words = n >> 2; words > 0;) {
        const int32_t batch = words < 128 ? words : 128;
        const uint32_t halves = fg_byte_halves(word, batch);
        sum += (int32_t)((halves & 0xFFFFu) + (halves >> 16)) - 512 * batch;
        word += batch;
        words -= batch;
    }
    x = (const int8_t *)(const void *)word;
    for (int32_t i = 0; i < (n & 3); ++i) {
        sum += x[i];
    }
    return sum;
}

/* The outputs of one window whose inputs sum to `sum`, int8 weights (w + 128) or 4-bit ones. */
static inline __attribute__((always_inline)) void fg_armv6m_window(const int8_t *x, int32_t taps, int32_t sum,
                                                                   const void *packed, int32_t out_c,
                                                                   const fg_requant_params *q, int8_t *output,
                                                                   int int4) {
    const fg_armv6m_channel *channels = fg_armv6m_channels(packed);
    const uint8_t *w = (const uint8_t *)(channels + out_c);
    /* - 128 * sum: the weights are w + 128; or - 8 * sum: the nibbles are w + 8 */
    const uint32_t unbiased = (uint32_t)sum * (int4 ? 0xFFFFFFF8u : 0xFFFFFF80u);
    const fg_armv6m_layer *layer = packed;
    if (layer->served) {
        fg_armv6m_run run = {x, taps, w, (int32_t)unbiased, channels, output, output + out_c, layer->low, layer->high};
        if (layer->served == FG_ARMV6M_POSITIVE) {
            (int4 ? fg_armv6m_groups_positive_s4 : fg_armv6m_groups_positive_s8)(&run);
        } else {
            (int4 ? fg_armv6m_groups_s4 : fg_armv6m_groups_s8)(&run);
        }
        return;
    }
    const int32_t group_bytes = FG_ARMV6M_GROUP * (int32_t)sizeof(int32_t) +
                                (int4 ? FG_ARMV6M_GROUP / 2 : FG_ARMV6M_GROUP) * taps;
    for (int32_t first = 0; first < out_c; first += FG_ARMV6M_GROUP, w += group_bytes) {
        const int32_t count = out_c - first < FG_ARMV6M_GROUP ? out_c - first : FG_ARMV6M_GROUP;
        int32_t acc[FG_ARMV6M_GROUP];
        acc[0] = (int32_t)unbiased;
        if (int4) {
            fg_armv6m_dot8_s4(x, taps, w, acc);
        } else {
            fg_armv6m_dot8(x, taps, w, acc);
        }
        fg_armv6m_outputs_s8(q, packed, acc, first, count, output + first);
    }
}

FG_HOT_LOOP void fg_armv6m_window_summed(const int8_t *x, int32_t taps, int32_t sum, const void *packed,
                                         int32_t out_c, const fg_requant_params *q, int8_t *output, int32_t int4) {
    if (int4) {
        fg_armv6m_window(x, taps, sum, packed, out_c, q, output, 1);
    } else {
        fg_armv6m_window(x, taps, sum, packed, out_c, q, output, 0);
    }
}

FG_HOT_LOOP void fg_armv6m_window_s8(const int8_t *x, int32_t taps, const void *packed, int32_t out_c,
                                     const int32_t *bias, const fg_requant_params *q, int8_t *output) {
    (void)bias; /* the groups' biases are in packed */
    fg_armv6m_window(x, taps, fg_sum_s8(x, taps), packed, out_c, q, output, 0);
}

FG_HOT_LOOP void fg_armv6m_window_s4(const int8_t *x, int32_t taps, const void *packed, int32_t out_c,
                                     const int32_t *bias, const fg_requant_params *q, int8_t *output) {
    (void)bias;
    fg_armv6m_window(x, taps, fg_sum_s8(x, taps), packed, out_c, q, output, 1);
}
