/* The Thumb-1 building blocks of the Armv6-M dot loops and output stage (gemm_armv6m.c, groups_armv6m.c), as
 * strings of inline assembly. Registers: x at r0 (and r3 = r0 + 1 for int8), the tap index r1 (from -n up to 0),
 * the group at r2 (eight int32 biases, then its weights), the input in r4, a product in r5, the eight sums in r6, r7,
 * r8-r12 and lr. Numeric labels: the dot loops use 2-5, the output stage 11-17. */
#ifndef FG_ARMV6M_ASM_H
#define FG_ARMV6M_ASM_H

/* One tap: the input x[r1] (from base r0 or r3) times the eight weights at w + at .. w + at + 7, into the sums r6, r7,
 * r8-r12, lr. MULS leaves the product in r5, which held the weight. */
#define FG_PRODUCT(at, sum, add) "ldrb r5, [r2, #(" #at ")]\n\tmuls r5, r4\n\t" add " " sum ", r5\n\t"
#define FG_TAP(base, at)                                                               \
    "ldrsb r4, [" base ", r1]\n\t"                                                     \
    FG_PRODUCT(at + 0, "r6", "adds r6,") FG_PRODUCT(at + 1, "r7", "adds r7,")          \
    FG_PRODUCT(at + 2, "r8", "add") FG_PRODUCT(at + 3, "r9", "add")                    \
    FG_PRODUCT(at + 4, "r10", "add") FG_PRODUCT(at + 5, "r11", "add")                  \
    FG_PRODUCT(at + 6, "r12", "add") FG_PRODUCT(at + 7, "lr", "add")

/* Two high-register sums started at the next two biases (LDM from r2), plus r4. */
#define FG_BIAS_PAIR(first, second)                                                                   \
    "ldm r2!, {r3, r5}\n\tadds r3, r3, r4\n\tmov " first ", r3\n\tadds r5, r5, r4\n\tmov " second ", r5\n\t"

/* r0 = x, r1 = n, r2 = the group, r4 = the sum to start from less the biases: the eight sums in registers (the biases
 * in three LDMs), r2 past the group. The loop indexes x + n with r1 = -n .. -1, from r0 (= x + n) and r3 (= x + n + 1): four taps a pass,
 * 103 instructions per 32 products; n mod 4 first taps run before it, one then two. */
#define FG_DOT8_S8                                                          \
    "ldm r2!, {r3, r5, r6, r7}\n\t"                                        \
    "adds r6, r6, r4\n\tmov r8, r6\n\tadds r7, r7, r4\n\tmov r9, r7\n\t"   \
    "adds r6, r3, r4\n\tadds r7, r5, r4\n\t"                               \
    FG_BIAS_PAIR("r10", "r11") FG_BIAS_PAIR("r12", "lr")                    \
    "adds r0, r0, r1\n\t"                                                  \
    "rsbs r1, r1, #0\n\t"                                                  \
    "adds r3, r0, #1\n\t"                                                  \
    "lsls r4, r1, #31\n\tbeq 2f\n\t"      /* n odd */                      \
    FG_TAP("r0", 0)                                                        \
    "adds r2, r2, #8\n\t"                                                  \
    "adds r1, r1, #1\n\t"                                                  \
    "2:\n\t"                                                               \
    "lsls r4, r1, #30\n\tbeq 3f\n\t"      /* two more than a multiple of four left */ \
    FG_TAP("r0", 0)                                                        \
    FG_TAP("r3", 8)                                                        \
    "adds r2, r2, #16\n\t"                                                 \
    "adds r1, r1, #2\n\t"                                                  \
    "3:\n\t"                                                               \
    "cmp r1, #0\n\tbeq 5f\n\t"                                             \
    "4:\n\t"                                                               \
    FG_TAP("r0", 0)                                                        \
    FG_TAP("r3", 8)                                                        \
    "adds r1, r1, #2\n\t"                                                  \
    FG_TAP("r0", 16)                                                       \
    FG_TAP("r3", 24)                                                       \
    "adds r2, r2, #32\n\t"                                                 \
    "adds r1, r1, #2\n\t"                                                  \
    "bne 4b\n\t"                                                           \
    "5:\n\t"

/* The eight sums to r3[0..7] (r4 overwritten). */
#define FG_STORE8                                                           \
    "str r6, [r3, #0]\n\t"                                                 \
    "str r7, [r3, #4]\n\t"                                                 \
    "mov r4, r8\n\tstr r4, [r3, #8]\n\t"                                   \
    "mov r4, r9\n\tstr r4, [r3, #12]\n\t"                                  \
    "mov r4, r10\n\tstr r4, [r3, #16]\n\t"                                 \
    "mov r4, r11\n\tstr r4, [r3, #20]\n\t"                                 \
    "mov r4, r12\n\tstr r4, [r3, #24]\n\t"                                 \
    "mov r4, lr\n\tstr r4, [r3, #28]\n\t"

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
 * at w + raw_at plus r4 plus 16 times the high one, on the way in; raw - 16 high on the way out (to r3[]). */
#define FG_RAW_START(raw_at, high_at, raw, high)                                                     \
    "ldr r5, [r2, #" high_at "]\n\tadds r5, r5, r4\n\tmov " high ", r5\n\tlsls r5, r5, #4\n\t"     \
    "ldr r7, [r2, #" raw_at "]\n\tadds r7, r7, r4\n\tadds r7, r7, r5\n\tmov " raw ", r7\n\t"
#define FG_RAW_END(raw_at, high_at, raw, high)                                                       \
    "mov r4, " high "\n\tstr r4, [r3, #" high_at "]\n\tlsls r4, r4, #4\n\t"                        \
    "mov r5, " raw "\n\tsubs r5, r5, r4\n\tstr r5, [r3, #" raw_at "]\n\t"

/* As FG_DOT8_S8 for 4-bit weights (the group's eight biases, then its nibbles), r3 the high nibble instead of a
 * second base, the index stepped between taps: 105 instructions per 32 products. The raw sums start at
 * s[2j] + 16 s[2j + 1] (s the starts) and leave raw - 16 high (FG_STORE8_S4), so that channel 2j's and 2j + 1's sums
 * come out (all modulo 2^32). */
#define FG_DOT8_S4                                                          \
    FG_RAW_START("8", "12", "r8", "r9") FG_RAW_START("16", "20", "r10", "r11") FG_RAW_START("24", "28", "r12", "lr") \
    "ldr r7, [r2, #4]\n\tadds r7, r7, r4\n\t"                              \
    "lsls r5, r7, #4\n\t"                                                  \
    "ldr r6, [r2, #0]\n\tadds r6, r6, r4\n\t"                              \
    "adds r6, r6, r5\n\t"                                                  \
    "adds r2, r2, #32\n\t"                                                 \
    "adds r0, r0, r1\n\t"                                                  \
    "rsbs r1, r1, #0\n\t"                                                  \
    "lsls r4, r1, #31\n\tbeq 2f\n\t"      /* n odd */                      \
    FG_TAP_S4(0)                                                           \
    "adds r2, r2, #4\n\t"                                                  \
    "adds r1, r1, #1\n\t"                                                  \
    "2:\n\t"                                                               \
    "lsls r4, r1, #30\n\tbeq 3f\n\t"      /* two more than a multiple of four left */ \
    FG_TAP_S4(0)                                                           \
    "adds r1, r1, #1\n\t"                                                  \
    FG_TAP_S4(4)                                                           \
    "adds r2, r2, #8\n\t"                                                  \
    "adds r1, r1, #1\n\t"                                                  \
    "3:\n\t"                                                               \
    "cmp r1, #0\n\tbeq 5f\n\t"                                             \
    "4:\n\t"                                                               \
    FG_TAP_S4(0)                                                           \
    "adds r1, r1, #1\n\t"                                                  \
    FG_TAP_S4(4)                                                           \
    "adds r1, r1, #1\n\t"                                                  \
    FG_TAP_S4(8)                                                           \
    "adds r1, r1, #1\n\t"                                                  \
    FG_TAP_S4(12)                                                          \
    "adds r2, r2, #16\n\t"                                                 \
    "adds r1, r1, #1\n\t"                                                  \
    "bne 4b\n\t"                                                           \
    "5:\n\t"
#define FG_STORE8_S4                                                        \
    "str r7, [r3, #4]\n\t"                                                 \
    "lsls r4, r7, #4\n\t"                                                  \
    "subs r6, r6, r4\n\t"                                                  \
    "str r6, [r3, #0]\n\t"                                                 \
    FG_RAW_END("8", "12", "r8", "r9") FG_RAW_END("16", "20", "r10", "r11") FG_RAW_END("24", "28", "r12", "lr")

/* The output stage (fg_armv6m_channel) of the sums at r0 (ldm) with the channels at r1, into the bytes at r2 up to
 * r11; r9, r10 the clamp's low and high ends. The channel's constants come in three LDMs (the exits', the
 * multiplier's halves, then k, c and the shift). Per output: the early exits (an accumulator outside the channel's
 * unsaturated range: 10-12 instructions in all), else the arithmetic (25; 22 without the sign's term, for layers
 * whose unsaturated sums are never negative) and the store and loop (4). */
#define FG_REQUANTIZE_WITH(sign)                                            \
    "11:\n\t"                                                              \
    "ldm r0!, {r3}\n\t"                                                    \
    "ldm r1!, {r4, r5}\n\t"             /* below, above */                 \
    "cmp r3, r4\n\tblt 15f\n\t"                                            \
    "cmp r3, r5\n\tbgt 16f\n\t"                                            \
    "asrs r4, r3, #16\n\t"              /* ah */                           \
    "uxth r3, r3\n\t"                   /* al */                           \
    "ldm r1!, {r5, r7}\n\t"             /* ml, mh */                       \
    "movs r6, r5\n\tmuls r6, r3, r6\n\t" /* al ml */                       \
    "lsrs r6, r6, #16\n\t"                                                 \
    "muls r5, r4, r5\n\t"               /* ah ml */                        \
    "adds r6, r6, r5\n\t"                                                  \
    "muls r3, r7, r3\n\t"               /* al mh */                        \
    "adds r6, r6, r3\n\t"                                                  \
    "muls r4, r7, r4\n\t"               /* ah mh: negative exactly when a is */ \
    sign                                                                   \
    "ldm r1!, {r3, r5, r7}\n\t"         /* k, c, shift */                  \
    "adds r6, r6, r3\n\t"               /* u */                            \
    "asrs r6, r6, #16\n\t"                                                 \
    "adds r4, r4, r6\n\t"                                                  \
    "adds r4, r4, r5\n\t"                                                  \
    "asrs r4, r7\n\t"                                                      \
    "12:\n\t"                                                              \
    "strb r4, [r2]\n\tadds r2, r2, #1\n\t"                                 \
    "cmp r2, r11\n\tbne 11b\n\t"                                           \
    "b 17f\n\t"                                                            \
    "15:\n\tmov r4, r9\n\tadds r1, r1, #20\n\tb 12b\n\t"                   \
    "16:\n\tmov r4, r10\n\tadds r1, r1, #20\n\tb 12b\n\t"                  \
    "17:\n\t"

/* u's - 2^15 [a < 0] (r4 = ah mh, negative exactly when a is). */
#define FG_SIGN_TERM "asrs r5, r4, #31\n\tlsls r5, r5, #15\n\tadds r6, r6, r5\n\t"
#define FG_REQUANTIZE FG_REQUANTIZE_WITH(FG_SIGN_TERM)
#define FG_REQUANTIZE_POSITIVE FG_REQUANTIZE_WITH("")

/* r4-r11 and lr saved (r4-r7 then r8-r11 through r4-r7), restored. */
#define FG_SAVE_ALL                                                         \
    "push {r4-r7, lr}\n\t"                                                 \
    "mov r4, r8\n\tmov r5, r9\n\tmov r6, r10\n\tmov r7, r11\n\t"            \
    "push {r4-r7}\n\t"
#define FG_RESTORE_ALL                                                      \
    "pop {r4-r7}\n\t"                                                      \
    "mov r8, r4\n\tmov r9, r5\n\tmov r10, r6\n\tmov r11, r7\n\t"            \
    "pop {r4-r7, pc}\n\t"

#endif /* FG_ARMV6M_ASM_H */
