#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

/* 16 taps of two rows against four weight rows (as fg_mve_dot2x4's loop body), software-pipelined: row 0's vector
 * is in q0 when the step starts (px0 at it; FG_MVE_PAST_QUANT_PRELOAD loads the first) and the step loads the next
 * one (pre-indexed: px0 moves on to it) between its last multiplies, so that from the first load on loads and
 * VMLADAVAs alternate: the M55 overlaps a load's beats with a multiply's, never two loads' (llvm-mca's M55 model: 16
 * cycles a step, 18 with row 0's load first). The last step reads row 0's 16 bytes after the block's taps (unused;
 * the pipelined loops' blocks end with FG_MVE_STEP2X4_LAST, without that load). */
#define FG_MVE_STEP2X4 FG_MVE_STEP2X4_SLOTS("", "", "")
/* A block's last step: no next vector of row 0 (the next block loads its own). */
#define FG_MVE_STEP2X4_LAST FG_MVE_STEP2X4_SLOTS_NEXT("", "", "", "")
/* FG_MVE_STEP2X4 with instructions in the cycles its multiplies leave free in llvm-mca's M55 model: A between two
 * of them (q2 and q3 hold weights there), B between two others (q2 free), C after the last (q2 as B left it). */
#define FG_MVE_STEP2X4_SLOTS(A, B, C) FG_MVE_STEP2X4_SLOTS_NEXT(A, B, C, FG_MVE_NEXT_ROW0)
#define FG_MVE_NEXT_ROW0 "vldrb.8 q0, [%[px0], #16]!\n"
/* The same with NEXT, row 0's next vector or nothing. */
#define FG_MVE_STEP2X4_SLOTS_NEXT(A, B, C, NEXT) \
    "vldrb.8 q2, [%[pk]], #64\n"               \
    "vmladava.s8 r0, q0, q2\n"                 \
    "vldrb.8 q1, [%[px1]], #16\n"              \
    "vmladava.s8 r8, q1, q2\n"                 \
    "vldrb.8 q3, [%[pk], #-48]\n"              \
    "vmladava.s8 r2, q0, q3\n"                 \
    "vldrb.8 q2, [%[pk], #-32]\n"              \
    "vmladava.s8 r10, q1, q3\n"                \
    "vldrb.8 q3, [%[pk], #-16]\n"              \
    "vmladava.s8 r4, q0, q2\n"                 \
    A                                           \
    "vmladava.s8 r6, q0, q3\n"                 \
    NEXT                                        \
    "vmladava.s8 r12, q1, q2\n"                \
    B                                           \
    "vmladava.s8 lr, q1, q3\n"                 \
    C

/* 16 taps of two rows against four 4-bit weight rows (the signed 4-bit GEMM layout, fg/variants_mve.h): per pair of
 * channels one vector whose VSHL.I8 #4 is 16 x the first channel's taps and whose VSHR.S8 #4 is the second's; two
 * VMLADAVA on each. */
#define FG_MVE_STEP2X4_S4                       \
    "vldrb.8 q0, [%[px0]], #16\n"              \
    "vldrb.8 q1, [%[px1]], #16\n"              \
    "vldrb.8 q2, [%[pk]], #32\n"               \
    "vshl.i8 q3, q2, #4\n"                     \
    "vshr.s8 q2, q2, #4\n"                     \
    "vmladava.s8 r0, q0, q3\n"                 \
    "vmladava.s8 r8, q1, q3\n"                 \
    "vmladava.s8 r2, q0, q2\n"                 \
    "vmladava.s8 r10, q1, q2\n"                \
    "vldrb.8 q2, [%[pk], #-16]\n"              \
    "vshl.i8 q3, q2, #4\n"                     \
    "vshr.s8 q2, q2, #4\n"                     \
    "vmladava.s8 r4, q0, q3\n"                 \
    "vmladava.s8 r12, q1, q3\n"                \
    "vmladava.s8 r6, q0, q2\n"                 \
    "vmladava.s8 lr, q1, q2\n"

/* The same against the offset 4-bit GEMM layout: VMLADAVA on each pair's vector as loaded (raw, 16 x the second
 * channel's taps + the first's + 8, into the first channel's accumulator) and after one VSHR.S8 #4 (the second
 * channel's taps, into its own). */
#define FG_MVE_STEP2X4_S4_OFFSET                \
    "vldrb.8 q0, [%[px0]], #16\n"              \
    "vldrb.8 q1, [%[px1]], #16\n"              \
    "vldrb.8 q2, [%[pk]], #32\n"               \
    "vmladava.s8 r0, q0, q2\n"                 \
    "vmladava.s8 r8, q1, q2\n"                 \
    "vshr.s8 q2, q2, #4\n"                     \
    "vmladava.s8 r2, q0, q2\n"                 \
    "vmladava.s8 r10, q1, q2\n"                \
    "vldrb.8 q3, [%[pk], #-16]\n"              \
    "vmladava.s8 r4, q0, q3\n"                 \
    "vmladava.s8 r12, q1, q3\n"                \
    "vshr.s8 q3, q3, #4\n"                     \
    "vmladava.s8 r6, q0, q3\n"                 \
    "vmladava.s8 lr, q1, q3\n"

/* Where the loops start their accumulators: the int8 and signed layouts from the block's bias words
 * (FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT); the offset layout from the rows' terms before the state
 * (fg_mve_gemm_state_s4: -8 x the row's sum on the first channel of each pair), its bias added as a vector (64 bytes
 * of quant block before the weights). */
#define FG_MVE_PAST_QUANT_PRELOAD FG_MVE_PAST_QUANT "vldrb.8 q0, [%[px0]]\n"  /* FG_MVE_STEP2X4's first row 0 */
#define FG_MVE_INIT_S4_OFFSET "ldmdb %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"
#define FG_MVE_PAST_QUANT_S4_OFFSET "adds %[pk], %[pk], #64\n"
/* The offset layout's first channels: raw - 16 x the second's sum (the row's 8 x sum is off already); then the
 * bias, the quant pointer moved on to the multipliers. */
#define FG_MVE_COLLECT_S4_OFFSET                \
    "sub r0, r0, r2, lsl #4\n"                 \
    "sub r4, r4, r6, lsl #4\n"                 \
    "sub r8, r8, r10, lsl #4\n"                \
    "sub r12, r12, lr, lsl #4\n"
#define FG_MVE_BIAS_S4_OFFSET "vldrw.32 q2, [%[px0]], #16\n" "vadd.i32 q0, q0, q2\n" "vadd.i32 q1, q1, q2\n"

/* The output stage of a block (after COLLECT): the sums through st into q0 and q1, BIAS, LEFT_SHIFT, the multipliers,
 * ROUND2 (with the offset and clamp interleaved), the stores; the flags say whether blocks are left (CMP). */
#define FG_MVE_OUT2(LEFT_SHIFT, BIAS, ROUND2) \
    "ldr %[px0], [%[st], #60]\n" \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n" \
    "vldrw.32 q0, [%[st]]\n" \
    "vldrw.32 q1, [%[st], #16]\n" \
    BIAS \
    LEFT_SHIFT \
    "vldrw.32 q2, [%[px0]]\n" \
    "vqrdmulh.s32 q0, q0, q2\n" \
    "ldrd r0, r2, [%[st], #48]\n" \
    "vqrdmulh.s32 q1, q1, q2\n" \
    ROUND2("vldrw.32 q2, [%[px0], #32]\n", "ldr r4, [%[st], #56]\n", "vadd.i32 q0, q0, %q[v]\n") \
    "vmax.s32 q0, q0, %q[lo]\n" \
    "vadd.i32 q1, q1, %q[v]\n" \
    "vmin.s32 q0, q0, %q[hi]\n" \
    "vmax.s32 q1, q1, %q[lo]\n" \
    "vstrb.32 q0, [r0], #4\n" \
    "vmin.s32 q1, q1, %q[hi]\n" \
    "vstrb.32 q1, [r2], #4\n" \
    "strd r0, r2, [%[st], #48]\n" \
    "cmp %[pk], r4\n"
/* The same where no channel shifts left and every channel shifts right, and no BIAS: row 1's sums loaded after the
 * first multiply, the two vectors' rounding, offset and clamp interleaved as a hill climb over dependency-preserving
 * swaps found cheapest in llvm-mca's M55 model (33 cycles, 37 with FG_MVE_OUT2). */
#define FG_MVE_OUT2_NEGATIVE                      \
    "ldr %[px0], [%[st], #60]\n"                 \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n" \
    FG_MVE_OUT2_NEGATIVE_STORED
/* FG_MVE_OUT2_NEGATIVE after its STM (the sums in st, px0 at the quant block). */
#define FG_MVE_OUT2_NEGATIVE_STORED               \
    "vldrw.32 q0, [%[st]]\n"                     \
    "ldrd r0, r2, [%[st], #48]\n"                \
    "vldrw.32 q2, [%[px0]]\n"                    \
    "vqrdmulh.s32 q0, q0, q2\n"                  \
    "vldrw.32 q1, [%[st], #16]\n"                \
    "vshr.s32 q3, q0, #31\n"                     \
    "vqrdmulh.s32 q1, q1, q2\n"                  \
    "vqadd.s32 q0, q0, q3\n"                     \
    "vshr.s32 q3, q1, #31\n"                     \
    "vqadd.s32 q1, q1, q3\n"                     \
    "vldrw.32 q2, [%[px0], #32]\n"               \
    "vrshl.s32 q0, q0, q2\n"                     \
    "vadd.i32 q0, q0, %q[v]\n"                   \
    "vrshl.s32 q1, q1, q2\n"                     \
    "vadd.i32 q1, q1, %q[v]\n"                   \
    "vmax.s32 q0, q0, %q[lo]\n"                  \
    "ldr r4, [%[st], #56]\n"                     \
    "vmin.s32 q0, q0, %q[hi]\n"                  \
    "cmp %[pk], r4\n"                            \
    "vmax.s32 q1, q1, %q[lo]\n"                  \
    "vstrb.32 q0, [r0], #4\n"                    \
    "vmin.s32 q1, q1, %q[hi]\n"                  \
    "vstrb.32 q1, [r2], #4\n"                    \
    "strd r0, r2, [%[st], #48]\n"

/* The same for the kinds with neither BIAS nor left shifts whose channels may not all shift right (the rounding's
 * sign step masked by the shifts), ordered the same way (39 cycles, 42 with FG_MVE_OUT2). */
#define FG_MVE_OUT2_DIVIDE                        \
    "ldr %[px0], [%[st], #60]\n"                 \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n" \
    "vldrw.32 q0, [%[st]]\n"                     \
    "vldrw.32 q2, [%[px0]]\n"                    \
    "vqrdmulh.s32 q0, q0, q2\n"                  \
    "vldrw.32 q1, [%[st], #16]\n"                \
    "vqrdmulh.s32 q1, q1, q2\n"                  \
    "vldrw.32 q2, [%[px0], #32]\n"               \
    "vand q3, q0, q2\n"                          \
    "ldrd r0, r2, [%[st], #48]\n"                \
    "vshr.s32 q3, q3, #31\n"                     \
    "vqadd.s32 q0, q0, q3\n"                     \
    "vrshl.s32 q0, q0, q2\n"                     \
    "vand q3, q1, q2\n"                          \
    "vshr.s32 q3, q3, #31\n"                     \
    "vqadd.s32 q1, q1, q3\n"                     \
    "vadd.i32 q0, q0, %q[v]\n"                   \
    "ldr r4, [%[st], #56]\n"                     \
    "vmax.s32 q0, q0, %q[lo]\n"                  \
    "vrshl.s32 q1, q1, q2\n"                     \
    "cmp %[pk], r4\n"                            \
    "vadd.i32 q1, q1, %q[v]\n"                   \
    "vmin.s32 q0, q0, %q[hi]\n"                  \
    "vstrb.32 q0, [r0], #4\n"                    \
    "vmax.s32 q1, q1, %q[lo]\n"                  \
    "vmin.s32 q1, q1, %q[hi]\n"                  \
    "vstrb.32 q1, [r2], #4\n"                    \
    "strd r0, r2, [%[st], #48]\n"

/* Every full block of four output channels of two rows, in one assembly loop: the eight accumulators started (INIT),
 * the dot products (unrolled 8 times, entered by TBB at steps % 8 before the end), COLLECT, then OUT: through sums[]
 * into two vectors, requantized (fg_mve_requantize) and stored. Returns the packed pointer after the last block.
 * STEP: FG_MVE_STEP2X4 (int8 weights), FG_MVE_STEP2X4_S4 or FG_MVE_STEP2X4_S4_OFFSET; INIT, PAST_QUANT, COLLECT and
 * OUT's BIAS: FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT, nothing, nothing but for the offset layout; OUT: FG_MVE_OUT2,
 * FG_MVE_OUT2_DIVIDE or FG_MVE_OUT2_NEGATIVE; v: the output offset in every lane; c: a constant vector LEFT_SHIFT may
 * use. Versions with the left shift, and without it for layers that never shift left. */
#define FG_MVE_BLOCKS2(NAME, STEP, INIT, PAST_QUANT, COLLECT, OUT, NEXT) \
__attribute__((noinline)) static const int32_t *NAME(fg_mve_gemm_state *st, const int32_t *packed, \
                                                     const fg_mve_clamp *clamp, int32x4_t v, int32x4_t c) { \
    const int32x4_t low = clamp->low, high = clamp->high; \
    const int8_t *px0, *px1; \
    int32_t n, t; \
    __asm__ volatile("2:\n" \
                     INIT \
                     "ldrd %[px0], %[px1], [%[st], #32]\n" \
                     "ldrd %[n], %[t], [%[st], #40]\n" \
                     "str %[pk], [%[st], #60]\n" \
                     PAST_QUANT \
                     FG_MVE_UNROLLED8(STEP) \
                     COLLECT \
                     OUT \
                     "bne 2b\n" \
                     NEXT \
                     : [pk] "+r"(packed), [px0] "=&r"(px0), [px1] "=&r"(px1), [n] "=&r"(n), [t] "=&r"(t) \
                     : [st] "r"(st), [v] "w"(v), [lo] "w"(low), [hi] "w"(high), [c] "w"(c) \
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory", "cc"); \
    return packed; \
}

#define FG_MVE_LEFT_SHIFT "vldrw.32 q2, [%[px0], #16]\n" "vshl.s32 q0, q0, q2\n" "vshl.s32 q1, q1, q2\n"
FG_MVE_BLOCKS2(fg_mve_blocks2_shifted, FG_MVE_STEP2X4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT_PRELOAD, "",
               FG_MVE_OUT2(FG_MVE_LEFT_SHIFT, "", FG_MVE_ROUND2_DIVIDE), "")
FG_MVE_BLOCKS2(fg_mve_blocks2, FG_MVE_STEP2X4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT_PRELOAD, "",
               FG_MVE_OUT2_DIVIDE, "")
FG_MVE_BLOCKS2(fg_mve_blocks2_negative, FG_MVE_STEP2X4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT_PRELOAD, "",
               FG_MVE_OUT2_NEGATIVE, "")
/* The signed layout's left shifts take the factor 16 of half its channels back: always applied, from the quant block
 * or, where no channel shifts left, the same -4, 0, -4, 0 from c. */
#define FG_MVE_SHIFT_BACK "vshl.s32 q0, q0, %q[c]\n" "vshl.s32 q1, q1, %q[c]\n"
FG_MVE_BLOCKS2(fg_mve_blocks2_s4_shifted, FG_MVE_STEP2X4_S4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT, "",
               FG_MVE_OUT2(FG_MVE_LEFT_SHIFT, "", FG_MVE_ROUND2_DIVIDE), "")
FG_MVE_BLOCKS2(fg_mve_blocks2_s4, FG_MVE_STEP2X4_S4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT, "",
               FG_MVE_OUT2(FG_MVE_SHIFT_BACK, "", FG_MVE_ROUND2_DIVIDE), "")
FG_MVE_BLOCKS2(fg_mve_blocks2_s4_offset_shifted, FG_MVE_STEP2X4_S4_OFFSET, FG_MVE_INIT_S4_OFFSET,
               FG_MVE_PAST_QUANT_S4_OFFSET, FG_MVE_COLLECT_S4_OFFSET,
               FG_MVE_OUT2(FG_MVE_LEFT_SHIFT, FG_MVE_BIAS_S4_OFFSET, FG_MVE_ROUND2_DIVIDE), "")
FG_MVE_BLOCKS2(fg_mve_blocks2_s4_offset, FG_MVE_STEP2X4_S4_OFFSET, FG_MVE_INIT_S4_OFFSET,
               FG_MVE_PAST_QUANT_S4_OFFSET, FG_MVE_COLLECT_S4_OFFSET,
               FG_MVE_OUT2("", FG_MVE_BIAS_S4_OFFSET, FG_MVE_ROUND2_DIVIDE), "")

/* After a pair's last block, on to the next pair of st->pairs_after (rows pair_advance bytes on, outputs `second`
 * bytes on, the blocks from first_block again; PENDING: a slot for the outputs, r10 and r12, before they move on), or
 * to 9. The accumulators' registers are free: each value loaded well before its use (llvm-mca's M55 model). */
#define FG_MVE_PAIR_ADVANCE(PENDING)            \
    "ldrd r0, r4, [%[st], #72]\n"              \
    "ldrd r6, r8, [%[st], #32]\n"              \
    "ldrd r10, r12, [%[st], #48]\n"            \
    "subs r0, r0, #1\n"                        \
    "bmi 9f\n"                                 \
    "str r0, [%[st], #72]\n"                   \
    "add r6, r6, r4\n"                         \
    "add r8, r8, r4\n"                         \
    "ldr r4, [%[st], #64]\n"                   \
    "strd r6, r8, [%[st], #32]\n"              \
    "ldr %[pk], [%[st], #80]\n"                \
    PENDING                                     \
    "add r10, r10, r4\n"                       \
    "add r12, r12, r4\n"                       \
    "strd r10, r12, [%[st], #48]\n"
#define FG_MVE_NEXT_PAIR FG_MVE_PAIR_ADVANCE("") "b 2b\n" "9:\n"
FG_MVE_BLOCKS2(fg_mve_pairs2_shifted, FG_MVE_STEP2X4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT_PRELOAD, "",
               FG_MVE_OUT2(FG_MVE_LEFT_SHIFT, "", FG_MVE_ROUND2_DIVIDE), FG_MVE_NEXT_PAIR)
FG_MVE_BLOCKS2(fg_mve_pairs2, FG_MVE_STEP2X4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT_PRELOAD, "",
               FG_MVE_OUT2_DIVIDE, FG_MVE_NEXT_PAIR)
FG_MVE_BLOCKS2(fg_mve_pairs2_negative, FG_MVE_STEP2X4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT_PRELOAD, "",
               FG_MVE_OUT2_NEGATIVE, FG_MVE_NEXT_PAIR)

/* A block's first two steps (FG_MVE_STEP2X4's, the weights in q2 alone) with the output stage of the block before
 * interleaved (FG_MVE_OUT2_NEGATIVE's arithmetic, row 0's vector in q7, row 1's in q3, the multipliers and shifts
 * through q2 between the weights; its quant block at n, its outputs stored through n and t): the order a hill climb
 * over dependency-preserving swaps in llvm-mca's M55 model (the block's start, these and its INIT 62 cycles, 73 with
 * the output stage after the dot products), then row 1's sign step moved to the first step through q0 (between its
 * last multiply and its next vector: no two multiplies and no sign step's add back to back). NEXT: row 0's next
 * vector (FG_MVE_NEXT_ROW0) where steps follow. */
#define FG_MVE_PIPE2_STEPS_OUT2_NEGATIVE(OUT0, OUT1, NEXT) \
    "vldrb.8 q2, [%[pk]], #64\n"              \
    "vmladava.s8 r0, q0, q2\n"                \
    "vldrb.8 q1, [%[px1]], #16\n"             \
    "vmladava.s8 r8, q1, q2\n"                \
    "vldrb.8 q2, [%[pk], #-48]\n"             \
    "vmladava.s8 r2, q0, q2\n"                \
    "vldrw.32 q7, [%[st]]\n"                  \
    "vmladava.s8 r10, q1, q2\n"               \
    "vldrw.32 q2, [%[n]]\n"                   \
    "vqrdmulh.s32 q7, q7, q2\n"               \
    "vldrw.32 q3, [%[st], #16]\n"             \
    "vqrdmulh.s32 q3, q3, q2\n"               \
    "vldrb.8 q2, [%[pk], #-32]\n"             \
    "vmladava.s8 r4, q0, q2\n"                \
    "vmladava.s8 r12, q1, q2\n"               \
    "vldrb.8 q2, [%[pk], #-16]\n"             \
    "vmladava.s8 r6, q0, q2\n"                \
    "vshr.s32 q0, q3, #31\n"                  \
    "vmladava.s8 lr, q1, q2\n"                \
    "vshr.s32 q2, q7, #31\n"                  \
    "vqadd.s32 q3, q3, q0\n"                  \
    "vldrb.8 q0, [%[px0], #16]!\n"            \
    "vqadd.s32 q7, q7, q2\n"                  \
    "vldrb.8 q2, [%[pk]], #64\n"              \
    "vmladava.s8 r0, q0, q2\n"                \
    "vldrb.8 q1, [%[px1]], #16\n"             \
    "vmladava.s8 r8, q1, q2\n"                \
    "vldrw.32 q2, [%[n], #32]\n"              \
    "vrshl.s32 q3, q3, q2\n"                  \
    "ldrd %[n], %[t], [%[st], #" OUT0 "]\n"    \
    "vrshl.s32 q7, q7, q2\n"                  \
    "vldrb.8 q2, [%[pk], #-48]\n"             \
    "vadd.i32 q7, q7, %q[v]\n"                \
    "vmladava.s8 r2, q0, q2\n"                \
    "vadd.i32 q3, q3, %q[v]\n"                \
    "vmladava.s8 r10, q1, q2\n"               \
    "vldrb.8 q2, [%[pk], #-32]\n"             \
    "vmax.s32 q7, q7, %q[lo]\n"               \
    "vmladava.s8 r4, q0, q2\n"                \
    "vmax.s32 q3, q3, %q[lo]\n"               \
    "vmladava.s8 r12, q1, q2\n"               \
    "vldrb.8 q2, [%[pk], #-16]\n"             \
    "vmladava.s8 r6, q0, q2\n"                \
    NEXT                                      \
    "vmin.s32 q7, q7, %q[hi]\n"               \
    "vmladava.s8 lr, q1, q2\n"                \
    "vstrb.32 q7, [%[n]], #4\n"               \
    "vmin.s32 q3, q3, %q[hi]\n"               \
    "vstrb.32 q3, [%[t]], #4\n"               \
    "strd %[n], %[t], [%[st], #" OUT0 "]\n"

/* A later block's start in the pipelined pairs loops: rows, bias, the block before's quant block into n (QUANT: after
 * the bias pk is at this block's), row 0's first vector (the order of the hill climb above). */
#define FG_MVE_PIPE_BLOCK_START_QUANT(QUANT)    \
    "ldrd %[px0], %[px1], [%[st], #32]\n"      \
    FG_MVE_INIT_BIAS                            \
    "vldrb.8 q0, [%[px0]]\n"                   \
    QUANT                                       \
    FG_MVE_PAST_QUANT
/* The block before's quant block from st, this block's to st (the unrolled loops, whose blocks' sizes vary). */
#define FG_MVE_PIPE_QUANT_SAVED "ldr %[n], [%[st], #60]\n" "str %[pk], [%[st], #60]\n"
#define FG_MVE_PIPE_BLOCK_START FG_MVE_PIPE_BLOCK_START_QUANT(FG_MVE_PIPE_QUANT_SAVED)
/* The block before's quant block BYTES (a block's) before this one's: the inline loops, whose blocks' sizes are
 * known; a later pair's first block's n is set before its pair advance (FG_MVE_PIPE_NEXT_PAIRS: QUANT empty). */
#define FG_MVE_PIPE_QUANT_BEFORE(BYTES) "sub %[n], %[pk], #" BYTES "\n"
/* After a block's dot products: its sums to st, the flags whether blocks are left (the end loaded before the STM, which
 * then hides the load's latency). */
#define FG_MVE_PIPE_BLOCK_END                                \
    "ldr %[t], [%[st], #56]\n"                              \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"       \
    "cmp %[pk], %[t]\n"
/* A call's first block's start (INIT, rows, SAVE: its quant block to st or nothing, row 0's first vector). */
#define FG_MVE_PIPE_PAIR_START(SAVE)            \
    FG_MVE_INIT_BIAS                            \
    "ldrd %[px0], %[px1], [%[st], #32]\n"      \
    SAVE                                        \
    FG_MVE_PAST_QUANT_PRELOAD
/* After the last pair's last block (LAST_QUANT: its quant block into px0): its own output stage, then to the end
 * (FG_MVE_NEXT_PAIR finds no pair left). */
#define FG_MVE_PIPE_PAIR_END(LAST_QUANT)        \
    LAST_QUANT                                  \
    FG_MVE_OUT2_NEGATIVE_STORED                 \
    FG_MVE_NEXT_PAIR

/* fg_mve_pairs2_negative software-pipelined: every block after the call's first runs its first steps with the block
 * before's output stage (a later pair's first block with the pair before's last); after the last pair's last block its
 * own output stage. LOOP: the loops over the pairs' blocks (FG_MVE_PIPE_LOOP_UNROLLED, _NINE, _THREE, _TWO, _ONE),
 * which end at 9. The narrowing stores take low registers: px0, px1, n and t are, so pk and st are r9 and r11. Outputs
 * are stored a block later: the rows are a band or windows copied to the stack (fg_conv2d_columns_s8_mve,
 * fg_conv2d_folded_s8_mve), never the output. */
#define FG_MVE_PAIRS2_PIPE(NAME, LOOP, LAST_QUANT)                                                               \
__attribute__((noinline)) static void NAME(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp, \
                                           int32x4_t v) {                                                        \
    const int32x4_t low = clamp->low, high = clamp->high;                                                       \
    const int8_t *px0, *px1;                                                                                    \
    int32_t n, t;                                                                                               \
    __asm__ volatile("2:\n"                                                                                     \
                     LOOP                                                                                       \
                     FG_MVE_PIPE_PAIR_END(LAST_QUANT)                                                           \
                     : [pk] "+r"(packed), [px0] "=&l"(px0), [px1] "=&l"(px1), [n] "=&l"(n), [t] "=&l"(t)       \
                     : [st] "r"(st), [v] "w"(v), [lo] "w"(low), [hi] "w"(high)                                  \
                     : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "q7", "memory", \
                       "cc");                                                                                   \
}
/* A pair's first block all in the unrolled loop (entered at 5); a later block's PEELED steps with the block before's
 * output stage, the rest of its steps there too (st's rounds_peeled, entry_peeled, loaded by PEELED). */
#define FG_MVE_PIPE_LOOP_UNROLLED(PEELED)       \
    FG_MVE_PIPE_PAIR_START("str %[pk], [%[st], #60]\n") \
    "ldrd %[n], %[t], [%[st], #40]\n"          \
    "b 5f\n"                                   \
    "1:\n"                                     \
    PEELED("48", "52")                          \
    "5:\n"                                     \
    FG_MVE_UNROLLED8(FG_MVE_STEP2X4)            \
    FG_MVE_PIPE_BLOCK_END                       \
    "bne 1b\n"                                 \
    FG_MVE_PAIR_ADVANCE(FG_MVE_PAIR_PENDING)    \
    PEELED("92", "96")                          \
    "b 5b\n"                                   \
    "9:\n"
/* Four steps or more: the first two peeled. */
#define FG_MVE_PIPE_PEEL2(OUT0, OUT1)           \
    FG_MVE_PIPE_BLOCK_START                     \
    FG_MVE_PIPE2_STEPS_OUT2_NEGATIVE(OUT0, OUT1, FG_MVE_NEXT_ROW0) \
    "ldrd %[n], %[t], [%[st], #84]\n"
/* The call's first block's FIRST steps inline, then every later block LATER (its start, steps, the block before's
 * output stage through st's words at OUT0 and OUT1, its end; QUANT: the block before's quant block into n), a later
 * pair's first block too (the pair before's last outputs pending: FG_MVE_PIPE_NEXT_PAIRS); no unrolled loop to enter.
 * BYTES: a block's (quant block and steps), whence the block before's quant block (FG_MVE_PIPE_QUANT_BEFORE: st's
 * quant word unused). */
#define FG_MVE_PIPE_LOOP_INLINE(FIRST, LATER, BYTES)             \
    FG_MVE_PIPE_PAIR_START("")                                   \
    FIRST                                                        \
    FG_MVE_PIPE_BLOCK_END                                        \
    "beq 4f\n"                                                  \
    "1:\n"                                                      \
    LATER("48", "52", FG_MVE_PIPE_QUANT_BEFORE(BYTES))           \
    "bne 1b\n"                                                  \
    FG_MVE_PIPE_NEXT_PAIRS(LATER, BYTES)
/* After a pair's last block (pk past it): its quant block into n, on to the next pair, whose first block is LATER
 * storing the pair before's last outputs (pending), then its later blocks at 1; after the last pair, to 9
 * (FG_MVE_PIPE_PAIR_END, n still the last block's quant block). */
#define FG_MVE_PIPE_NEXT_PAIRS(LATER, BYTES)    \
    "4:\n"                                     \
    "sub %[n], %[pk], #(" BYTES " - 16)\n"     \
    FG_MVE_PAIR_ADVANCE(FG_MVE_PAIR_PENDING)    \
    LATER("92", "96", "")                       \
    "bne 1b\n"                                 \
    "b 4b\n"                                   \
    "9:\n"
/* The last block's quant block for FG_MVE_PIPE_PAIR_END: from st (the unrolled loops) or n (the inline ones). */
#define FG_MVE_PIPE_LAST_QUANT_SAVED "ldr %[px0], [%[st], #60]\n"
#define FG_MVE_PIPE_LAST_QUANT_KEPT "mov %[px0], %[n]\n"
/* Two steps (17 to 32 taps): a later block's start, its two steps with the block before's output stage, its end. */
#define FG_MVE_PIPE2_BLOCK(OUT0, OUT1, QUANT)   \
    FG_MVE_PIPE_BLOCK_START_QUANT(QUANT)        \
    FG_MVE_PIPE2_STEPS_OUT2_NEGATIVE(OUT0, OUT1, "") \
    FG_MVE_PIPE_BLOCK_END
#define FG_MVE_PIPE_LOOP_TWO FG_MVE_PIPE_LOOP_INLINE(FG_MVE_STEP2X4 FG_MVE_STEP2X4, FG_MVE_PIPE2_BLOCK, "192")
/* Three steps (33 to 48 taps: kws_ref_model's first layer): a later block's third step after its first two (93 -> 84
 * cycles a block in llvm-mca's M55 model against the unrolled loop). */
#define FG_MVE_PIPE3_BLOCK(OUT0, OUT1, QUANT)   \
    FG_MVE_PIPE_BLOCK_START_QUANT(QUANT)        \
    FG_MVE_PIPE2_STEPS_OUT2_NEGATIVE(OUT0, OUT1, FG_MVE_NEXT_ROW0) \
    FG_MVE_STEP2X4_LAST                         \
    FG_MVE_PIPE_BLOCK_END
#define FG_MVE_PIPE_LOOP_THREE \
    FG_MVE_PIPE_LOOP_INLINE(FG_MVE_STEP2X4 FG_MVE_STEP2X4 FG_MVE_STEP2X4, FG_MVE_PIPE3_BLOCK, "256")
/* One step (up to 16 taps): a later block whole, its start, its one step (FG_MVE_STEP2X4's, the weights in q2 alone),
 * the block before's output stage and its end interleaved (as FG_MVE_PIPE2_STEPS_OUT2_NEGATIVE: 49 cycles in
 * llvm-mca's M55 model, 58 as fg_mve_pairs2_negative runs it). */
#define FG_MVE_PIPE1_BLOCK_OUT2_NEGATIVE(OUT0, OUT1, QUANT) \
    "ldm %[pk], {r8, r10, r12, lr}\n"               \
    "ldm %[pk]!, {r0, r2, r4, r6}\n"                \
    "ldrd %[px0], %[px1], [%[st], #32]\n"           \
    QUANT                                           \
    "adds %[pk], %[pk], #48\n"                      \
    "vldrw.32 q2, [%[n]]\n"                         \
    "vldrw.32 q7, [%[st]]\n"                        \
    "vqrdmulh.s32 q7, q7, q2\n"                     \
    "vldrw.32 q3, [%[st], #16]\n"                   \
    "vqrdmulh.s32 q3, q3, q2\n"                     \
    "vshr.s32 q2, q7, #31\n"                        \
    "vldrb.8 q0, [%[px0]]\n"                        \
    "vqadd.s32 q7, q7, q2\n"                        \
    "vldrb.8 q2, [%[pk]], #64\n"                    \
    "vmladava.s8 r0, q0, q2\n"                      \
    "vldrb.8 q1, [%[px1]], #16\n"                   \
    "vmladava.s8 r8, q1, q2\n"                      \
    "vshr.s32 q2, q3, #31\n"                        \
    "vqadd.s32 q3, q3, q2\n"                        \
    "vldrw.32 q2, [%[n], #32]\n"                    \
    "vrshl.s32 q3, q3, q2\n"                        \
    "ldrd %[n], %[t], [%[st], #" OUT0 "]\n"          \
    "vrshl.s32 q7, q7, q2\n"                        \
    "vldrb.8 q2, [%[pk], #-48]\n"                   \
    "vmladava.s8 r2, q0, q2\n"                      \
    "vadd.i32 q7, q7, %q[v]\n"                      \
    "vmladava.s8 r10, q1, q2\n"                     \
    "vldrb.8 q2, [%[pk], #-32]\n"                   \
    "vmladava.s8 r4, q0, q2\n"                      \
    "vadd.i32 q3, q3, %q[v]\n"                      \
    "vmladava.s8 r12, q1, q2\n"                     \
    "vmax.s32 q7, q7, %q[lo]\n"                     \
    "vldrb.8 q2, [%[pk], #-16]\n"                   \
    "vmladava.s8 r6, q0, q2\n"                      \
    "vmax.s32 q3, q3, %q[lo]\n"                     \
    "vmladava.s8 lr, q1, q2\n"                      \
    "vmin.s32 q7, q7, %q[hi]\n"                     \
    "vstrb.32 q7, [%[n]], #4\n"                     \
    "vmin.s32 q3, q3, %q[hi]\n"                     \
    "vstrb.32 q3, [%[t]], #4\n"                     \
    "strd %[n], %[t], [%[st], #" OUT0 "]\n"          \
    "ldr %[t], [%[st], #56]\n"                      \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"\
    "cmp %[pk], %[t]\n"
/* One step: the call's first block's step inline, every later block FG_MVE_PIPE1_BLOCK_OUT2_NEGATIVE. */
#define FG_MVE_PIPE_LOOP_ONE FG_MVE_PIPE_LOOP_INLINE(FG_MVE_STEP2X4, FG_MVE_PIPE1_BLOCK_OUT2_NEGATIVE, "128")
/* A later block's start and nine steps (129 taps or more: a 3x3 convolution of 16 input channels or more) with the
 * block before's output stage in the steps' free cycles (FG_MVE_STEP2X4_SLOTS): FG_MVE_OUT2_NEGATIVE's arithmetic one
 * row at a time in q7 (a second row's vector would leave the weights one register), the multipliers and shifts
 * through q2 in B slots, loaded again for row 1; its outputs through st's words at OUT0 and OUT1 (out0 and out1, or
 * a pair's pending ones); LATE: a load into t in a slot left free. llvm-mca's M55 model: 166 cycles a block of nine
 * steps with its end (184 as fg_mve_pairs2_pipe runs it: the first two steps with the output stage, the rest through
 * the unrolled loop), 165 up to the unrolled loop's entry. */
#define FG_MVE_PIPE9_STEPS_OUT2_NEGATIVE(OUT0, OUT1, LATE, QUANT, BETWEEN, NINTH)                               \
    FG_MVE_PIPE_BLOCK_START_QUANT(QUANT)                                                                        \
    FG_MVE_STEP2X4_SLOTS("vldrw.32 q7, [%[st]]\n", "vldrw.32 q2, [%[n]]\n", "vqrdmulh.s32 q7, q7, q2\n")       \
    BETWEEN                                                                                                     \
    FG_MVE_STEP2X4_SLOTS("ldr %[t], [%[st], #" OUT0 "]\n", "vshr.s32 q2, q7, #31\n", "vqadd.s32 q7, q7, q2\n")  \
    BETWEEN                                                                                                     \
    FG_MVE_STEP2X4_SLOTS("", "vldrw.32 q2, [%[n], #32]\n", "vrshl.s32 q7, q7, q2\n")                          \
    BETWEEN                                                                                                     \
    FG_MVE_STEP2X4_SLOTS("vadd.i32 q7, q7, %q[v]\n", "vmax.s32 q7, q7, %q[lo]\n", "")                         \
    BETWEEN                                                                                                     \
    FG_MVE_STEP2X4_SLOTS("vmin.s32 q7, q7, %q[hi]\n", "vstrb.32 q7, [%[t]], #4\n", "")                        \
    BETWEEN                                                                                                     \
    FG_MVE_STEP2X4_SLOTS("vldrw.32 q7, [%[st], #16]\n", "vldrw.32 q2, [%[n]]\n", "vqrdmulh.s32 q7, q7, q2\n")  \
    BETWEEN                                                                                                     \
    FG_MVE_STEP2X4_SLOTS("str %[t], [%[st], #" OUT0 "]\n", "vshr.s32 q2, q7, #31\n", "vqadd.s32 q7, q7, q2\n")  \
    BETWEEN                                                                                                     \
    FG_MVE_STEP2X4_SLOTS(LATE, "vldrw.32 q2, [%[n], #32]\n", "vrshl.s32 q7, q7, q2\n")                        \
    BETWEEN                                                                                                     \
    NINTH(OUT1)
/* The ninth step with the output stage's end, row 1's offset, clamp and store through st's word at OUT1: PEELED, steps
 * follow in the unrolled loop (the end after it); LAST, the block's last step (the end in its slots, that of row 0's
 * next vector too); THEN, STEPS then a last step with the end in its slots. */
#define FG_MVE_PIPE9_NINTH_OUT1(OUT1)                                                                          \
    FG_MVE_STEP2X4_SLOTS("vadd.i32 q7, q7, %q[v]\n", "vmax.s32 q7, q7, %q[lo]\n" "ldr %[n], [%[st], #" OUT1 "]\n", \
                         "")
#define FG_MVE_PIPE9_OUT1_STORE(OUT1) "vstrb.32 q7, [%[n]], #4\n" "str %[n], [%[st], #" OUT1 "]\n"
#define FG_MVE_PIPE9_NINTH_PEELED(OUT1) \
    FG_MVE_PIPE9_NINTH_OUT1(OUT1) "vmin.s32 q7, q7, %q[hi]\n" FG_MVE_PIPE9_OUT1_STORE(OUT1)
#define FG_MVE_PIPE9_NINTH_LAST(OUT1)                                                                           \
    FG_MVE_STEP2X4_SLOTS_NEXT("vadd.i32 q7, q7, %q[v]\n",                                                     \
                              "ldr %[n], [%[st], #" OUT1 "]\n" "vmin.s32 q7, q7, %q[hi]\n",                    \
                              FG_MVE_PIPE9_OUT1_STORE(OUT1), "vmax.s32 q7, q7, %q[lo]\n")
#define FG_MVE_PIPE9_NINTH_THEN(OUT1, STEPS)                                                                    \
    FG_MVE_PIPE9_NINTH_OUT1(OUT1)                                                                               \
    STEPS                                                                                                       \
    FG_MVE_STEP2X4_SLOTS_NEXT("", "", FG_MVE_PIPE9_OUT1_STORE(OUT1), "vmin.s32 q7, q7, %q[hi]\n")
#define FG_MVE_PIPE9_NINTH_THEN1(OUT1) FG_MVE_PIPE9_NINTH_THEN(OUT1, "")
#define FG_MVE_PIPE9_NINTH_THEN3(OUT1) FG_MVE_PIPE9_NINTH_THEN(OUT1, FG_MVE_STEP2X4 FG_MVE_STEP2X4)
/* Ten steps or more: the first nine peeled (the rows, row 0's vector and the weights left at the tenth step), then
 * the loop's rounds and entry (st's rounds_peeled, entry_peeled) for the rest. */
#define FG_MVE_PIPE_PEEL9(OUT0, OUT1)                                                         \
    FG_MVE_PIPE9_STEPS_OUT2_NEGATIVE(OUT0, OUT1, "ldr %[t], [%[st], #88]\n", FG_MVE_PIPE_QUANT_SAVED, "",        \
                                     FG_MVE_PIPE9_NINTH_PEELED)                                               \
    "ldr %[n], [%[st], #84]\n"
/* The outputs of a pair's last block kept as pending (stored by the next pair's first block), the next pair's four
 * bytes on from them (the stores that moved out0 and out1 on are still to come). */
#define FG_MVE_PAIR_PENDING "strd r10, r12, [%[st], #92]\n" "adds r4, r4, #4\n"
/* Nine steps: a later block's start, steps and output stage, its end. */
#define FG_MVE_PIPE9_BLOCK(OUT0, OUT1, QUANT) FG_MVE_PIPE9_BLOCK_BETWEEN(OUT0, OUT1, QUANT, "", FG_MVE_PIPE9_NINTH_LAST)
/* FG_MVE_PIPE9_STEPS_OUT2_NEGATIVE with BETWEEN steps after each of its nine (the output stage spread over all the
 * block's steps: their multiplies leave two cycles a step free in llvm-mca's M55 model, and the output stage's
 * instructions, three a step in nine, overflowed them), its end. */
#define FG_MVE_PIPE9_BLOCK_BETWEEN(OUT0, OUT1, QUANT, BETWEEN, NINTH)                                        \
    FG_MVE_PIPE9_STEPS_OUT2_NEGATIVE(OUT0, OUT1, "ldr %[t], [%[st], #56]\n", QUANT, BETWEEN, NINTH)           \
    "stm %[st], {r0, r2, r4, r6, r8, r10, r12, lr}\n"                          \
    "cmp %[pk], %[t]\n"
#define FG_MVE_STEPS9                                                                                           \
    FG_MVE_STEP2X4 FG_MVE_STEP2X4 FG_MVE_STEP2X4 FG_MVE_STEP2X4 FG_MVE_STEP2X4 FG_MVE_STEP2X4 FG_MVE_STEP2X4      \
    FG_MVE_STEP2X4 FG_MVE_STEP2X4
#define FG_MVE_PIPE_LOOP_NINE FG_MVE_PIPE_LOOP_INLINE(FG_MVE_STEPS9, FG_MVE_PIPE9_BLOCK, "640")
/* Eighteen steps (a 3x3 convolution of 32 input channels): a later block's other nine inline too, one after each
 * step with the output stage; no unrolled loop to enter. */
#define FG_MVE_PIPE18_BLOCK(OUT0, OUT1, QUANT) \
    FG_MVE_PIPE9_BLOCK_BETWEEN(OUT0, OUT1, QUANT, FG_MVE_STEP2X4, FG_MVE_PIPE9_NINTH_THEN1)
#define FG_MVE_PIPE_LOOP_EIGHTEEN FG_MVE_PIPE_LOOP_INLINE(FG_MVE_STEPS9 FG_MVE_STEPS9, FG_MVE_PIPE18_BLOCK, "1216")
/* Thirty-six steps (a 3x3 convolution of 64 input channels): the same with three after each. */
#define FG_MVE_PIPE36_BLOCK(OUT0, OUT1, QUANT) \
    FG_MVE_PIPE9_BLOCK_BETWEEN(OUT0, OUT1, QUANT, FG_MVE_STEP2X4 FG_MVE_STEP2X4 FG_MVE_STEP2X4,          \
                               FG_MVE_PIPE9_NINTH_THEN3)
#define FG_MVE_PIPE_LOOP_THIRTY_SIX \
    FG_MVE_PIPE_LOOP_INLINE(FG_MVE_STEPS9 FG_MVE_STEPS9 FG_MVE_STEPS9 FG_MVE_STEPS9, FG_MVE_PIPE36_BLOCK, "2368")
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe, FG_MVE_PIPE_LOOP_UNROLLED(FG_MVE_PIPE_PEEL2), FG_MVE_PIPE_LAST_QUANT_SAVED)
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe_spread, FG_MVE_PIPE_LOOP_UNROLLED(FG_MVE_PIPE_PEEL9),
                   FG_MVE_PIPE_LAST_QUANT_SAVED)
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe_two, FG_MVE_PIPE_LOOP_TWO, FG_MVE_PIPE_LAST_QUANT_KEPT)
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe_three, FG_MVE_PIPE_LOOP_THREE, FG_MVE_PIPE_LAST_QUANT_KEPT)
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe_one, FG_MVE_PIPE_LOOP_ONE, FG_MVE_PIPE_LAST_QUANT_KEPT)
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe_nine, FG_MVE_PIPE_LOOP_NINE, FG_MVE_PIPE_LAST_QUANT_KEPT)
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe_eighteen, FG_MVE_PIPE_LOOP_EIGHTEEN, FG_MVE_PIPE_LAST_QUANT_KEPT)
FG_MVE_PAIRS2_PIPE(fg_mve_pairs2_pipe_thirty_six, FG_MVE_PIPE_LOOP_THIRTY_SIX, FG_MVE_PIPE_LAST_QUANT_KEPT)

/* The loop fg_mve_gemm_blocks2_pairs runs for st's layer: by its steps where no channel shifts left and every
 * channel shifts right (FG_MVE_PIPE_ONE for one step ... FG_MVE_PIPE_SPREAD for ten or more but 18 and 36), else
 * FG_MVE_PLAIN. ops/variants/mve.py's pairs_loop makes the same choice. */
typedef enum {
    FG_MVE_PLAIN,
    FG_MVE_PIPE_ONE,
    FG_MVE_PIPE_TWO,
    FG_MVE_PIPE_THREE,
    FG_MVE_PIPE_UNROLLED,
    FG_MVE_PIPE_NINE,
    FG_MVE_PIPE_SPREAD,
    FG_MVE_PIPE_EIGHTEEN,
    FG_MVE_PIPE_THIRTY_SIX
} fg_mve_pairs_kind;

__attribute__((always_inline)) static inline fg_mve_pairs_kind fg_mve_pairs_kind_of(const fg_mve_gemm_state *st,
                                                                                 int shifts_left) {
    const int32_t steps = 8 * st->rounds - (-st->entry & 7);
    if (shifts_left || !st->negative) {
        return FG_MVE_PLAIN;
    }
    return steps == 36  ? FG_MVE_PIPE_THIRTY_SIX
           : steps == 18 ? FG_MVE_PIPE_EIGHTEEN
           : steps > 9   ? FG_MVE_PIPE_SPREAD
           : steps == 9  ? FG_MVE_PIPE_NINE
           : steps > 3   ? FG_MVE_PIPE_UNROLLED
           : steps == 3  ? FG_MVE_PIPE_THREE
           : steps == 1  ? FG_MVE_PIPE_ONE
                         : FG_MVE_PIPE_TWO;
}

/* What the pipelined loops read besides the layer's state: the first block, the rounds and entry of the steps after
 * the peeled ones (nine peeled from ten or more, else two). */
__attribute__((always_inline)) static inline void fg_mve_pairs_begin(fg_mve_gemm_state *st, const int32_t *packed) {
    const int32_t peeled = 8 * st->rounds - (-st->entry & 7) - 2;
    const int32_t rest = peeled > 7 ? peeled - 7 : peeled;
    st->first_block = packed;
    st->rounds_peeled = (rest + 7) >> 3;
    st->entry_peeled = rest & 7;
}

/* The loop for layers where a channel shifts left or not every channel shifts right (right for any layer). */
void fg_mve_pairs_unpipelined(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                              int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset);
    st->first_block = packed;
    (void)(shifts_left    ? fg_mve_pairs2_shifted(st, packed, clamp, offset, offset)
           : st->negative ? fg_mve_pairs2_negative(st, packed, clamp, offset, offset)
                          : fg_mve_pairs2(st, packed, clamp, offset, offset));
}

void fg_mve_gemm_blocks2_pairs(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                               int shifts_left) {
    const fg_mve_pairs_kind kind = fg_mve_pairs_kind_of(st, shifts_left);
    if (kind == FG_MVE_PLAIN) {
        fg_mve_pairs_unpipelined(st, packed, clamp, shifts_left);
        return;
    }
    fg_mve_pairs_begin(st, packed);
    (kind == FG_MVE_PIPE_THIRTY_SIX ? fg_mve_pairs2_pipe_thirty_six
     : kind == FG_MVE_PIPE_EIGHTEEN ? fg_mve_pairs2_pipe_eighteen
     : kind == FG_MVE_PIPE_SPREAD   ? fg_mve_pairs2_pipe_spread
     : kind == FG_MVE_PIPE_NINE     ? fg_mve_pairs2_pipe_nine
     : kind == FG_MVE_PIPE_UNROLLED ? fg_mve_pairs2_pipe
     : kind == FG_MVE_PIPE_THREE    ? fg_mve_pairs2_pipe_three
     : kind == FG_MVE_PIPE_ONE      ? fg_mve_pairs2_pipe_one
                                    : fg_mve_pairs2_pipe_two)(st, packed, clamp, vdupq_n_s32(clamp->offset));
}

void fg_mve_pairs_by_one(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp, int shifts_left) {
    for (int32_t pair = st->pairs_after; pair >= 0; --pair) {
        fg_mve_gemm_blocks2(st, packed, clamp, shifts_left);  /* out0 and out1 on by 4 a block */
        st->x0 += st->pair_advance;
        st->x1 += st->pair_advance;
        st->out0 += st->second;
        st->out1 += st->second;
    }
}

/* fg_mve_gemm_blocks2_pairs's loop of one kind alone (a layer of another kind pair by pair: fg_mve_pairs_by_one). */
#define FG_MVE_PAIRS_ALONE(NAME, KIND, LOOP)                                                                      \
    void NAME(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp, int shifts_left) {        \
        if (fg_mve_pairs_kind_of(st, shifts_left) != KIND) {                                                     \
            fg_mve_pairs_by_one(st, packed, clamp, shifts_left);                                                 \
            return;                                                                                              \
        }                                                                                                        \
        fg_mve_pairs_begin(st, packed);                                                                          \
        LOOP(st, packed, clamp, vdupq_n_s32(clamp->offset));                                                     \
    }
FG_MVE_PAIRS_ALONE(fg_mve_pairs_one, FG_MVE_PIPE_ONE, fg_mve_pairs2_pipe_one)
FG_MVE_PAIRS_ALONE(fg_mve_pairs_two, FG_MVE_PIPE_TWO, fg_mve_pairs2_pipe_two)
FG_MVE_PAIRS_ALONE(fg_mve_pairs_three, FG_MVE_PIPE_THREE, fg_mve_pairs2_pipe_three)
FG_MVE_PAIRS_ALONE(fg_mve_pairs_unrolled, FG_MVE_PIPE_UNROLLED, fg_mve_pairs2_pipe)
FG_MVE_PAIRS_ALONE(fg_mve_pairs_nine, FG_MVE_PIPE_NINE, fg_mve_pairs2_pipe_nine)
FG_MVE_PAIRS_ALONE(fg_mve_pairs_spread, FG_MVE_PIPE_SPREAD, fg_mve_pairs2_pipe_spread)
FG_MVE_PAIRS_ALONE(fg_mve_pairs_eighteen, FG_MVE_PIPE_EIGHTEEN, fg_mve_pairs2_pipe_eighteen)
FG_MVE_PAIRS_ALONE(fg_mve_pairs_thirty_six, FG_MVE_PIPE_THIRTY_SIX, fg_mve_pairs2_pipe_thirty_six)

const int32_t *fg_mve_gemm_blocks2(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                   int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset);  /* also as c, which these loops do not read */
    return shifts_left   ? fg_mve_blocks2_shifted(st, packed, clamp, offset, offset)
           : st->negative ? fg_mve_blocks2_negative(st, packed, clamp, offset, offset)
                          : fg_mve_blocks2(st, packed, clamp, offset, offset);
}

/* A table: one load per call where fg_mve_vec4 would take five instructions. */
static const int32_t fg_mve_shift_back_s4[4] __attribute__((aligned(8))) = {-4, 0, -4, 0};

const int32_t *fg_mve_gemm_blocks2_s4(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                      int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset), back = vldrwq_s32(fg_mve_shift_back_s4);
    return shifts_left ? fg_mve_blocks2_s4_shifted(st, packed, clamp, offset, back)
                       : fg_mve_blocks2_s4(st, packed, clamp, offset, back);
}

/* fg_mve_blocks2_s4 over st->pairs_after + 1 pairs of rows in one call (FG_MVE_NEXT_PAIR, as fg_mve_pairs2). */
FG_MVE_BLOCKS2(fg_mve_pairs2_s4_shifted, FG_MVE_STEP2X4_S4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT, "",
               FG_MVE_OUT2(FG_MVE_LEFT_SHIFT, "", FG_MVE_ROUND2_DIVIDE), FG_MVE_NEXT_PAIR)
FG_MVE_BLOCKS2(fg_mve_pairs2_s4, FG_MVE_STEP2X4_S4, FG_MVE_INIT_BIAS, FG_MVE_PAST_QUANT, "",
               FG_MVE_OUT2(FG_MVE_SHIFT_BACK, "", FG_MVE_ROUND2_DIVIDE), FG_MVE_NEXT_PAIR)

void fg_mve_pairs_s4(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp, int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset), back = vldrwq_s32(fg_mve_shift_back_s4);
    st->first_block = packed;
    (void)(shifts_left ? fg_mve_pairs2_s4_shifted(st, packed, clamp, offset, back)
                       : fg_mve_pairs2_s4(st, packed, clamp, offset, back));
}

const int32_t *fg_mve_gemm_blocks2_s4_offset(fg_mve_gemm_state *st, const int32_t *packed, const fg_mve_clamp *clamp,
                                             int shifts_left) {
    const int32x4_t offset = vdupq_n_s32(clamp->offset);
    return shifts_left ? fg_mve_blocks2_s4_offset_shifted(st, packed, clamp, offset, offset)
                       : fg_mve_blocks2_s4_offset(st, packed, clamp, offset, offset);
}

#endif /* __ARM_FEATURE_MVE */
