#include <string.h>

#include "fg/support/hot_loop.h"
#include "fg/support/weights_s4.h"

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#elif defined(__ARM_FEATURE_DSP)
#include "fg/isa/dsp.h"
#endif

/* The vector paths multiply by 16 w (a nibble moved, or masked, to the top of its byte: one instruction, exact in
 * int8) and divide the sums by 16 at the end, exact while |16 sum| < 2^31: at most FG_S4_BLOCK taps of |x w| <= 1024
 * per division. */
#define FG_S4_BLOCK 32768

/* The scalar loop: the taps [0, n) of the rows from byte 0 (n even, or the last tap in a low nibble). */
static void fg_dot4_scalar_s4(const int8_t *x, const int8_t *const w[4], int32_t n, uint32_t acc[4]) {
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    uint32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (; n >= 2; n -= 2, x += 2) {
        const int32_t x0 = x[0], x1 = x[1];
        int32_t b = *w0++;
        a0 += (uint32_t)(x0 * fg_low_s4(b) + x1 * fg_high_s4(b));
        b = *w1++;
        a1 += (uint32_t)(x0 * fg_low_s4(b) + x1 * fg_high_s4(b));
        b = *w2++;
        a2 += (uint32_t)(x0 * fg_low_s4(b) + x1 * fg_high_s4(b));
        b = *w3++;
        a3 += (uint32_t)(x0 * fg_low_s4(b) + x1 * fg_high_s4(b));
    }
    if (n > 0) {
        a0 += (uint32_t)(x[0] * fg_low_s4(*w0));
        a1 += (uint32_t)(x[0] * fg_low_s4(*w1));
        a2 += (uint32_t)(x[0] * fg_low_s4(*w2));
        a3 += (uint32_t)(x[0] * fg_low_s4(*w3));
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

#if defined(__ARM_FEATURE_MVE)
/* The last taps (n < 32), 16 per pass under a tail predicate: each weight byte gathered into the lanes of its two
 * taps, then its low nibble (even lanes) shifted to the top of the byte and the high one (odd lanes) masked there. */
__attribute__((always_inline)) static inline void fg_dot4_tail_s4(const int8_t *x, const int8_t *const w[4],
                                                                   int32_t n, int32_t a[4]) {
    static const uint8_t twice[16] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7};
    static const int8_t shifts[16] = {4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0};
    const uint8x16_t offsets = vldrbq_u8(twice);
    const int8x16_t lane_shifts = vldrbq_s8(shifts), high = vdupq_n_s8((int8_t)0xF0);
    for (int32_t i = 0; i < n; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(n - i));
        const int8x16_t xv = vldrbq_z_s8(x + i, p);
        for (int j = 0; j < 4; ++j) {
            const int8x16_t v = vldrbq_gather_offset_z_s8(w[j] + i / 2, offsets, p);
            a[j] = vmladavaq_p_s8(a[j], xv, vandq_s8(vshlq_s8(v, lane_shifts), high), p);
        }
    }
}

/* 32 taps per pass: VLD2 splits the inputs into even and odd taps, which the low and high nibbles of each row's 16
 * weight bytes multiply (VMLADAVA, 16 products each): 2 loads for the inputs, 5 instructions per row; then the
 * tail. Returns the taps done (all). */
FG_HOT_LOOP static int32_t fg_dot4_vector_s4(const int8_t *x, const int8_t *const w[4], int32_t n, uint32_t acc[4]) {
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    const int8x16_t high = vdupq_n_s8((int8_t)0xF0);
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const int32_t done = n & ~31;
    for (int32_t i = 0; i < done; i += 32, x += 32, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
        const int8x16x2_t xs = vld2q_s8(x);
        int8x16_t v = vldrbq_s8(w0);
        a0 = vmladavaq_s8(a0, xs.val[0], vshlq_n_s8(v, 4));
        a0 = vmladavaq_s8(a0, xs.val[1], vandq_s8(v, high));
        v = vldrbq_s8(w1);
        a1 = vmladavaq_s8(a1, xs.val[0], vshlq_n_s8(v, 4));
        a1 = vmladavaq_s8(a1, xs.val[1], vandq_s8(v, high));
        v = vldrbq_s8(w2);
        a2 = vmladavaq_s8(a2, xs.val[0], vshlq_n_s8(v, 4));
        a2 = vmladavaq_s8(a2, xs.val[1], vandq_s8(v, high));
        v = vldrbq_s8(w3);
        a3 = vmladavaq_s8(a3, xs.val[0], vshlq_n_s8(v, 4));
        a3 = vmladavaq_s8(a3, xs.val[1], vandq_s8(v, high));
    }
    int32_t a[4] = {a0, a1, a2, a3};
    if (n > done) {
        const int8_t *const rest[4] = {w[0] + done / 2, w[1] + done / 2, w[2] + done / 2, w[3] + done / 2};
        fg_dot4_tail_s4(x, rest, n - done, a);
    }
    for (int j = 0; j < 4; ++j) {
        acc[j] += (uint32_t)(a[j] >> 4);
    }
    return n;
}
#elif defined(__ARM_FEATURE_DSP)
static inline uint32_t fg_load_word(const void *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);  /* Armv7-M and later load unaligned words */
    return v;
}

/* One row's 8 taps against the input pairs: the low nibbles (taps 0 2 4 6) and the high ones (1 3 5 7) masked to
 * the top of their bytes; SXTB16 makes the halfword pairs (0, 4) (2, 6) (1, 5) (3, 7), which the inputs meet in the
 * same order. */
__attribute__((always_inline)) static inline int32_t fg_dsp_mac8_s4(int32_t acc, const int8_t *w, uint32_t x04,
                                                                    uint32_t x15, uint32_t x26, uint32_t x37) {
    const uint32_t word = fg_load_word(w);
    const uint32_t low = (word << 4) & 0xF0F0F0F0u, high = word & 0xF0F0F0F0u;
    acc = __smlad(x04, __sxtb16(low), acc);
    acc = __smlad(x15, __sxtb16(high), acc);
    acc = __smlad(x26, fg_dsp_odd_s8x2(low), acc);
    return __smlad(x37, fg_dsp_odd_s8x2(high), acc);
}

/* 8 taps per pass: the inputs rearranged once for four rows by PKHBT / PKHTB into (x0 x1 x4 x5) and (x2 x3 x6 x7)
 * and sign-extended into the pairs (0, 4) (1, 5) (2, 6) (3, 7). Returns the taps done. */
FG_HOT_LOOP static int32_t fg_dot4_vector_s4(const int8_t *x, const int8_t *const w[4], int32_t n, uint32_t acc[4]) {
    const int8_t *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const int32_t done = n & ~7;
    for (int32_t i = 0; i < done; i += 8, x += 8, w0 += 4, w1 += 4, w2 += 4, w3 += 4) {
        const uint32_t lo = fg_load_word(x), hi = fg_load_word(x + 4);
        const uint32_t x0145 = (lo & 0xFFFFu) | (hi << 16), x2367 = (hi & 0xFFFF0000u) | (lo >> 16);
        const uint32_t x04 = __sxtb16(x0145), x15 = fg_dsp_odd_s8x2(x0145);
        const uint32_t x26 = __sxtb16(x2367), x37 = fg_dsp_odd_s8x2(x2367);
        a0 = fg_dsp_mac8_s4(a0, w0, x04, x15, x26, x37);
        a1 = fg_dsp_mac8_s4(a1, w1, x04, x15, x26, x37);
        a2 = fg_dsp_mac8_s4(a2, w2, x04, x15, x26, x37);
        a3 = fg_dsp_mac8_s4(a3, w3, x04, x15, x26, x37);
    }
    acc[0] += (uint32_t)(a0 >> 4);
    acc[1] += (uint32_t)(a1 >> 4);
    acc[2] += (uint32_t)(a2 >> 4);
    acc[3] += (uint32_t)(a3 >> 4);
    return done;
}
#elif defined(__arm__) && defined(__thumb2__)
/* One weight byte of one row: its two taps times the inputs t and u (SBFX, ASR, two MLAs). */
#define FG_S4_ROW_ASM(a, w)                     \
    "ldrsb %[b], [%[" #w "]], #1\n\t"           \
    "sbfx %[c], %[b], #0, #4\n\t"               \
    "asr %[b], %[b], #4\n\t"                    \
    "mla %[" #a "], %[t], %[c], %[" #a "]\n\t"  \
    "mla %[" #a "], %[u], %[b], %[" #a "]\n\t"

#define FG_S4_PAIR_ASM                 \
    "ldrsb %[t], [%[x]], #1\n\t"       \
    "ldrsb %[u], [%[x]], #1\n\t"       \
    FG_S4_ROW_ASM(a0, w0) FG_S4_ROW_ASM(a1, w1)

/* Two rows, four taps per pass (n a positive multiple of 4): GCC's own loop over four rows spills (5 instructions
 * per MAC); this one stays in ten registers, 26 instructions per 8 products. */
static void fg_dot2_rows_s4(const int8_t *x, int32_t n, const int8_t *w0, const int8_t *w1, uint32_t *a0_out,
                            uint32_t *a1_out) {
    const int8_t *const end = x + n;
    uint32_t a0 = *a0_out, a1 = *a1_out;
    int32_t t, u, b, c;
    __asm__("1:\n\t" FG_S4_PAIR_ASM FG_S4_PAIR_ASM
            "cmp %[x], %[end]\n\t"
            "bne 1b\n\t"
            : [a0] "+r"(a0), [a1] "+r"(a1), [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [t] "=&r"(t), [u] "=&r"(u),
              [b] "=&r"(b), [c] "=&r"(c)
            : [end] "r"(end)
            : "cc", "memory");
    *a0_out = a0;
    *a1_out = a1;
}

/* Four taps per pass of two rows at a time (the inputs loaded once per two rows). Returns the taps done. */
FG_HOT_LOOP static int32_t fg_dot4_vector_s4(const int8_t *x, const int8_t *const w[4], int32_t n, uint32_t acc[4]) {
    const int32_t done = n & ~3;
    if (done > 0) {
        fg_dot2_rows_s4(x, done, w[0], w[1], &acc[0], &acc[1]);
        fg_dot2_rows_s4(x, done, w[2], w[3], &acc[2], &acc[3]);
    }
    return done;
}
#else
static int32_t fg_dot4_vector_s4(const int8_t *x, const int8_t *const w[4], int32_t n, uint32_t acc[4]) {
    (void)x, (void)w, (void)n, (void)acc;
    return 0;
}
#endif

FG_HOT_LOOP void fg_dot4_s4(const int8_t *x, const int8_t *const rows[4], int32_t n, uint32_t acc[4]) {
    const int8_t *w[4] = {rows[0], rows[1], rows[2], rows[3]};
    while (n > 0) {
        const int32_t done = fg_dot4_vector_s4(x, w, n < FG_S4_BLOCK ? n : FG_S4_BLOCK, acc);
        if (done == 0) {
            break;
        }
        x += done, n -= done;
        for (int j = 0; j < 4; ++j) {
            w[j] += done / 2;
        }
    }
    fg_dot4_scalar_s4(x, w, n, acc);
}
