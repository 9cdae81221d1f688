/* The Armv6-M dot-product loop and the window of the convolution and fully-connected variants (fg/isa/armv6m.h).
 * The loop is Thumb-1 assembly: GCC keeps neither the eight sums nor the pointers in registers for it. */
#include "fg/isa/armv6m.h"
#include "fg/support/hot_loop.h"

#if defined(__ARM_ARCH_6M__)
/* One tap: the input x[r1] (from base r0 or r3) times the eight weights at w + at .. w + at + 7, into the sums r6, r7,
 * r8-r12, lr. MULS leaves the product in r5, which held the weight. */
#define FG_PRODUCT(at, sum, add) "ldrb r5, [r2, #(" #at ")]\n\tmuls r5, r4\n\t" add " " sum ", r5\n\t"
#define FG_TAP(base, at)                                                               \
    "ldrsb r4, [" base ", r1]\n\t"                                                     \
    FG_PRODUCT(at + 0, "r6", "adds r6,") FG_PRODUCT(at + 1, "r7", "adds r7,")          \
    FG_PRODUCT(at + 2, "r8", "add") FG_PRODUCT(at + 3, "r9", "add")                    \
    FG_PRODUCT(at + 4, "r10", "add") FG_PRODUCT(at + 5, "r11", "add")                  \
    FG_PRODUCT(at + 6, "r12", "add") FG_PRODUCT(at + 7, "lr", "add")

/* The dot loops' entry (r4-r11 and lr saved, then acc; r4 = acc[0], the sum to start from less the biases) and exit. */
#define FG_DOT8_ENTER                                                       \
    ".syntax unified\n\t"                                                  \
    "push {r4-r7, lr}\n\t"                                                 \
    "mov r4, r8\n\tmov r5, r9\n\tmov r6, r10\n\tmov r7, r11\n\t"            \
    "push {r3-r7}\n\t"                                                     \
    "ldr r4, [r3]\n\t"
#define FG_DOT8_LEAVE                                                       \
    "pop {r4-r7}\n\t"                                                      \
    "mov r8, r4\n\tmov r9, r5\n\tmov r10, r6\n\tmov r11, r7\n\t"            \
    "pop {r4-r7, pc}\n\t"
/* A high-register sum started at the bias at w + at, plus r4. */
#define FG_BIAS_HIGH(at, sum) "ldr r5, [r2, #" #at "]\n\tadds r5, r5, r4\n\tmov " sum ", r5\n\t"

/* r0 = x, r1 = n, r2 = the group (eight int32 biases, then the weights), r3 = acc (kept on the stack meanwhile). The
 * loop indexes x + n with r1 = -n .. -1, from r0 (= x + n) and r3 (= x + n + 1): four taps a pass, 103 instructions
 * per 32 products; n mod 4 first taps run before it, one then two. */
__attribute__((naked)) void fg_armv6m_dot8(__attribute__((unused)) const int8_t *x, __attribute__((unused)) int32_t n,
                                           __attribute__((unused)) const uint8_t *w,
                                           __attribute__((unused)) int32_t acc[FG_ARMV6M_GROUP]) {
    __asm__ volatile(
        FG_DOT8_ENTER
        FG_BIAS_HIGH(8, "r8") FG_BIAS_HIGH(12, "r9") FG_BIAS_HIGH(16, "r10") FG_BIAS_HIGH(20, "r11")
        FG_BIAS_HIGH(24, "r12") FG_BIAS_HIGH(28, "lr")
        "ldr r6, [r2, #0]\n\tadds r6, r6, r4\n\t"
        "ldr r7, [r2, #4]\n\tadds r7, r7, r4\n\t"
        "adds r2, r2, #32\n\t"
        "adds r0, r0, r1\n\t"
        "rsbs r1, r1, #0\n\t"
        "adds r3, r0, #1\n\t"
        "lsls r4, r1, #31\n\tbeq 2f\n\t"      /* n odd */
        FG_TAP("r0", 0)
        "adds r2, r2, #8\n\t"
        "adds r1, r1, #1\n\t"
        "2:\n\t"
        "lsls r4, r1, #30\n\tbeq 3f\n\t"      /* two more than a multiple of four left */
        FG_TAP("r0", 0)
        FG_TAP("r3", 8)
        "adds r2, r2, #16\n\t"
        "adds r1, r1, #2\n\t"
        "3:\n\t"
        "cmp r1, #0\n\tbeq 5f\n\t"
        "4:\n\t"
        FG_TAP("r0", 0)
        FG_TAP("r3", 8)
        "adds r1, r1, #2\n\t"
        FG_TAP("r0", 16)
        FG_TAP("r3", 24)
        "adds r2, r2, #32\n\t"
        "adds r1, r1, #2\n\t"
        "bne 4b\n\t"
        "5:\n\t"
        "pop {r3}\n\t"
        "str r6, [r3, #0]\n\t"
        "str r7, [r3, #4]\n\t"
        "mov r4, r8\n\tstr r4, [r3, #8]\n\t"
        "mov r4, r9\n\tstr r4, [r3, #12]\n\t"
        "mov r4, r10\n\tstr r4, [r3, #16]\n\t"
        "mov r4, r11\n\tstr r4, [r3, #20]\n\t"
        "mov r4, r12\n\tstr r4, [r3, #24]\n\t"
        "mov r4, lr\n\tstr r4, [r3, #28]\n\t"
        FG_DOT8_LEAVE);
}

/* 4-bit weights: one tap's four bytes, each two channels' nibbles + 8, unsigned. The byte b times the input into its
 * raw sum, b >> 4 times the input into its high sum (r3 holds it). */
#define FG_NIBBLES(at, raw, high, add_raw, add_high)                          \
    "ldrb r5, [r2, #(" #at ")]\n\tlsrs r3, r5, #4\n\tmuls r5, r4\n\tmuls r3, r4\n\t" \
    add_raw " " raw ", r5\n\t" add_high " " high ", r3\n\t"
#define FG_TAP_S4(at)                                                                            \
    "ldrsb r4, [r0, r1]\n\t"                                                                    \
    FG_NIBBLES(at + 0, "r6", "r7", "adds r6,", "adds r7,") FG_NIBBLES(at + 1, "r8", "r9", "add", "add") \
    FG_NIBBLES(at + 2, "r10", "r11", "add", "add") FG_NIBBLES(at + 3, "r12", "lr", "add", "add")

/* A pair of sums in high registers: the high one from the bias at w + high_at plus r4, the raw one from the bias
 * at w + raw_at plus r4 plus 16 times the high one, on the way in; raw - 16 high on the way out. */
#define FG_RAW_START(raw_at, high_at, raw, high)                                                     \
    "ldr r5, [r2, #" high_at "]\n\tadds r5, r5, r4\n\tmov " high ", r5\n\tlsls r5, r5, #4\n\t"     \
    "ldr r7, [r2, #" raw_at "]\n\tadds r7, r7, r4\n\tadds r7, r7, r5\n\tmov " raw ", r7\n\t"
#define FG_RAW_END(raw_at, high_at, raw, high)                                                       \
    "mov r4, " high "\n\tstr r4, [r3, #" high_at "]\n\tlsls r4, r4, #4\n\t"                        \
    "mov r5, " raw "\n\tsubs r5, r5, r4\n\tstr r5, [r3, #" raw_at "]\n\t"

/* As fg_armv6m_dot8 (the group's eight biases, then its nibbles), r3 the high nibble instead of a second base, the
 * index stepped between taps: 105 instructions per 32 products (the int8 loop's 103). The raw sums start at
 * s[2j] + 16 s[2j + 1] (s the starts) and leave raw - 16 high, so that acc[2j] and acc[2j + 1] end up as channel
 * 2j's and 2j + 1's sums plus their start (all modulo 2^32). */
__attribute__((naked)) void fg_armv6m_dot8_s4(__attribute__((unused)) const int8_t *x,
                                              __attribute__((unused)) int32_t n,
                                              __attribute__((unused)) const uint8_t *w,
                                              __attribute__((unused)) int32_t acc[FG_ARMV6M_GROUP]) {
    __asm__ volatile(
        FG_DOT8_ENTER
        FG_RAW_START("8", "12", "r8", "r9") FG_RAW_START("16", "20", "r10", "r11") FG_RAW_START("24", "28", "r12", "lr")
        "ldr r7, [r2, #4]\n\tadds r7, r7, r4\n\t"
        "lsls r5, r7, #4\n\t"
        "ldr r6, [r2, #0]\n\tadds r6, r6, r4\n\t"
        "adds r6, r6, r5\n\t"
        "adds r2, r2, #32\n\t"
        "adds r0, r0, r1\n\t"
        "rsbs r1, r1, #0\n\t"
        "lsls r4, r1, #31\n\tbeq 2f\n\t"      /* n odd */
        FG_TAP_S4(0)
        "adds r2, r2, #4\n\t"
        "adds r1, r1, #1\n\t"
        "2:\n\t"
        "lsls r4, r1, #30\n\tbeq 3f\n\t"      /* two more than a multiple of four left */
        FG_TAP_S4(0)
        "adds r1, r1, #1\n\t"
        FG_TAP_S4(4)
        "adds r2, r2, #8\n\t"
        "adds r1, r1, #1\n\t"
        "3:\n\t"
        "cmp r1, #0\n\tbeq 5f\n\t"
        "4:\n\t"
        FG_TAP_S4(0)
        "adds r1, r1, #1\n\t"
        FG_TAP_S4(4)
        "adds r1, r1, #1\n\t"
        FG_TAP_S4(8)
        "adds r1, r1, #1\n\t"
        FG_TAP_S4(12)
        "adds r2, r2, #16\n\t"
        "adds r1, r1, #1\n\t"
        "bne 4b\n\t"
        "5:\n\t"
        "pop {r3}\n\t"
        "str r7, [r3, #4]\n\t"
        "lsls r4, r7, #4\n\t"
        "subs r6, r6, r4\n\t"
        "str r6, [r3, #0]\n\t"
        FG_RAW_END("8", "12", "r8", "r9") FG_RAW_END("16", "20", "r10", "r11") FG_RAW_END("24", "28", "r12", "lr")
        FG_DOT8_LEAVE);
}

/* r0 = acc, r1 = count, r2 = channel, r3 = output, the layer on the stack; r9-r11: clamp low and high, output end.
 * The channel's constants come in three LDMs (the exits', the multiplier's halves, then k, c and the shift). Per
 * output: the early exits (an accumulator outside the channel's unsaturated range: 10-12 instructions in all), else
 * the arithmetic of fg_armv6m_channel (25) and the store and loop (4). */
__attribute__((naked)) void fg_armv6m_requantize_s8(__attribute__((unused)) const int32_t *acc,
                                                    __attribute__((unused)) int32_t count,
                                                    __attribute__((unused)) const fg_armv6m_channel *channel,
                                                    __attribute__((unused)) int8_t *output,
                                                    __attribute__((unused)) const fg_armv6m_layer *layer) {
    __asm__ volatile(
        ".syntax unified\n\t"
        "push {r4-r7, lr}\n\t"
        "mov r4, r8\n\tmov r5, r9\n\tmov r6, r10\n\tmov r7, r11\n\t"
        "push {r4-r7}\n\t"
        "ldr r4, [sp, #36]\n\t"
        "ldr r5, [r4, #8]\n\tmov r9, r5\n\t"
        "ldr r5, [r4, #12]\n\tmov r10, r5\n\t"
        "adds r1, r3, r1\n\tmov r11, r1\n\t"
        "mov r1, r2\n\t"
        "mov r2, r3\n\t"
        "1:\n\t"
        "ldm r0!, {r3}\n\t"
        "ldm r1!, {r4, r5}\n\t"             /* below, above */
        "cmp r3, r4\n\tblt 5f\n\t"
        "cmp r3, r5\n\tbgt 6f\n\t"
        "asrs r4, r3, #16\n\t"              /* ah */
        "uxth r3, r3\n\t"                   /* al */
        "ldm r1!, {r5, r7}\n\t"             /* ml, mh */
        "movs r6, r5\n\tmuls r6, r3, r6\n\t" /* al ml */
        "lsrs r6, r6, #16\n\t"
        "muls r5, r4, r5\n\t"               /* ah ml */
        "adds r6, r6, r5\n\t"
        "muls r3, r7, r3\n\t"               /* al mh */
        "adds r6, r6, r3\n\t"
        "muls r4, r7, r4\n\t"               /* ah mh: negative exactly when a is */
        "asrs r5, r4, #31\n\tlsls r5, r5, #15\n\tadds r6, r6, r5\n\t"
        "ldm r1!, {r3, r5, r7}\n\t"         /* k, c, shift */
        "adds r6, r6, r3\n\t"               /* u */
        "asrs r6, r6, #16\n\t"
        "adds r4, r4, r6\n\t"
        "adds r4, r4, r5\n\t"
        "asrs r4, r7\n\t"
        "2:\n\t"
        "strb r4, [r2]\n\tadds r2, r2, #1\n\t"
        "cmp r2, r11\n\tbne 1b\n\t"
        "b 7f\n\t"
        "5:\n\tmov r4, r9\n\tadds r1, r1, #20\n\tb 2b\n\t"
        "6:\n\tmov r4, r10\n\tadds r1, r1, #20\n\tb 2b\n\t"
        "7:\n\t"
        "pop {r4-r7}\n\t"
        "mov r8, r4\n\tmov r9, r5\n\tmov r10, r6\n\tmov r11, r7\n\t"
        "pop {r4-r7, pc}\n\t");
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

/* The sum of n signed bytes, four at a time where they are word-aligned: each byte flipped to x + 128 (unsigned), the
 * even and odd bytes summed in the two 16-bit halves of a word (at most 128 words between flushes: 128 x 2 x 255 <
 * 2^16), then 128 n taken off. */
typedef uint32_t fg_bytes4 __attribute__((may_alias)); /* four int8 read as one word */

static FG_HOT_LOOP int32_t fg_sum_s8(const int8_t *x, int32_t n) {
    int32_t sum = 0;
    while (n > 0 && ((uintptr_t)x & 3u) != 0) {
        sum += *x++;
        --n;
    }
    const fg_bytes4 *word = (const fg_bytes4 *)(const void *)x;
    for (int32_t words = n >> 2; words > 0;) {
        const int32_t batch = words < 128 ? words : 128;
        uint32_t halves = 0;
        for (int32_t i = 0; i < batch; ++i) {
            const uint32_t v = word[i] ^ 0x80808080u;
            halves += (v & 0x00FF00FFu) + ((v >> 8) & 0x00FF00FFu);
        }
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
