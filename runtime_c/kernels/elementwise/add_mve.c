#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* (x + offset) << left_shift, then TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
static inline int32x4_t fg_add_scale(int32x4_t x, int32_t offset, int32_t left_shift, int32_t multiplier,
                                     int32x4_t right) {
    x = vshlq_r_s32(vaddq_n_s32(x, offset), left_shift);
    return fg_mve_rounding_divide_by_pot(vqrdmulhq_n_s32(x, multiplier), right);
}

/* The sum of two scaled inputs, rescaled to the output, offset and clamped. */
static inline int32x4_t fg_add_rescale4(int32x4_t a, int32x4_t b, const fg_add_params *p, int32x4_t out_right,
                                      int32x4_t low, int32x4_t high) {
    const int32x4_t sum = fg_mve_rounding_divide_by_pot(vqrdmulhq_n_s32(vaddq_s32(a, b), p->output_multiplier),
                                                        out_right);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(sum, p->output_offset), low), high);
}

/* Below this many elements the tables cost more than they save. */
enum { FG_ADD_TABLE_MIN = 512 };

/* table[u]: input byte (int8_t)u scaled (fg_add_scale): the scaling depends on that byte alone. */
static void fg_add_table(int32_t table[256], int32_t offset, int32_t left_shift, int32_t multiplier,
                         int32_t shift) {
    const int32x4_t right = vdupq_n_s32(shift);
    for (int32_t k = -128; k < 128; k += 4) {
        const int32x4_t x = vreinterpretq_s32_u32(vidupq_n_u32((uint32_t)k, 1));
        vstrwq_s32(table + (k & 255), fg_add_scale(x, offset, left_shift, multiplier, right));
    }
}

/* Both inputs' tables (as fg_add_table) where one shifts right and the other by 0 (the input of the larger scale: its
 * multiplier 0.5), in one assembly loop: each input's (value + offset)
 * << left_shift four values on at a time (x1, x2: the values -128..-125 to start with; an add, exact: the shifted
 * values stay within 2^28), by a VMLA by one (q6) on the multiplier's pipeline. Software-pipelined: a step rounds its
 * first table's values multiplied the step before (12 cycles a step in llvm-mca's M55 model, 28 as GCC compiles two
 * fg_add_table loops in one). The values -128..-1 to table[128..255], then 0..127 to table[0..127]. ROUND1 and
 * ROUND2: the three parts of FG_ADD_ROUND_RIGHT (the input shifts right, every lane rounds) or FG_ADD_ROUND_NONE (a
 * shift of 0 leaves the multiply's result as it is). */
#define FG_ADD_TABLES_STEPS(ROUND1, ROUND2)         \
    "dls lr, %[steps]\n"                            \
    "1:\n"                                          \
    ROUND1(SIGN, "q2", "q4", "%[shift1]")           \
    "vmla.s32 %q[x1], q6, %[step]\n"                \
    ROUND1(ADD, "q2", "q4", "%[shift1]")            \
    "vqrdmulh.s32 q3, %q[x2], %[multiplier2]\n"     \
    ROUND1(SHIFT, "q2", "q4", "%[shift1]")          \
    "vstrw.32 q2, [%[t1]], #16\n"                   \
    ROUND2(SIGN, "q3", "q5", "%[shift2]")           \
    "vqrdmulh.s32 q2, %q[x1], %[multiplier1]\n"     \
    ROUND2(ADD, "q3", "q5", "%[shift2]")            \
    "vmla.s32 %q[x2], q6, %[step]\n"                \
    ROUND2(SHIFT, "q3", "q5", "%[shift2]")          \
    "vstrw.32 q3, [%[t2]], #16\n"                   \
    "le lr, 1b\n"
#define FG_ADD_ROUND_RIGHT(PART, Y, T, SHIFT) FG_ADD_ROUND_RIGHT_##PART(Y, T, SHIFT)
#define FG_ADD_ROUND_RIGHT_SIGN(Y, T, SHIFT) "vshr.s32 " T ", " Y ", #31\n"
#define FG_ADD_ROUND_RIGHT_ADD(Y, T, SHIFT) "vqadd.s32 " Y ", " Y ", " T "\n"
#define FG_ADD_ROUND_RIGHT_SHIFT(Y, T, SHIFT) "vrshl.s32 " Y ", " SHIFT "\n"
#define FG_ADD_ROUND_NONE(PART, Y, T, SHIFT) ""
#define FG_ADD_TABLES(NAME, ROUND1, ROUND2)                                                                       \
static void NAME(int32_t table1[256], int32_t table2[256], int32x4_t x1, int32x4_t x2, const fg_add_params *p) {  \
    int32_t *t1 = table1 + 128, *t2 = table2 + 128;                                                               \
    __asm__ volatile("vmov.i32 q6, #1\n"                                                                         \
                     "vqrdmulh.s32 q2, %q[x1], %[multiplier1]\n"                                                 \
                     FG_ADD_TABLES_STEPS(ROUND1, ROUND2)                                                          \
                     "sub %[t1], %[t1], #1024\n"                                                                 \
                     "sub %[t2], %[t2], #1024\n"                                                                 \
                     FG_ADD_TABLES_STEPS(ROUND1, ROUND2)                                                          \
                     : [t1] "+r"(t1), [t2] "+r"(t2), [x1] "+w"(x1), [x2] "+w"(x2)                                 \
                     : [steps] "r"(32), [step] "r"(4 * (1 << p->left_shift)),                                    \
                       [multiplier1] "r"(p->input1_multiplier), [multiplier2] "r"(p->input2_multiplier),         \
                       [shift1] "r"(p->input1_shift), [shift2] "r"(p->input2_shift)                              \
                     : "lr", "q2", "q3", "q4", "q5", "q6", "memory");                                            \
}
FG_ADD_TABLES(fg_add_tables_second_right, FG_ADD_ROUND_NONE, FG_ADD_ROUND_RIGHT)
FG_ADD_TABLES(fg_add_tables_first_right, FG_ADD_ROUND_RIGHT, FG_ADD_ROUND_NONE)

/* The whole steps of four elements (the caller does the last one to three), each input's scaled value looked up in
 * its table (a gathering load of the bytes as unsigned offsets), in one loop (GCC 12 reloads the parameters in every
 * step). The widening loads and the narrowing store take r0-r7. Software-pipelined: the next step's bytes and table
 * values are loaded while this step's sum is requantized, so the loop runs every whole step but the last, which
 * follows it without loads: nothing past the whole steps is read (n >= FG_ADD_TABLE_MIN); every input is read before
 * the output of the same or an earlier element is stored (ops/overlap.py's order holds). For an output shift of 0
 * or more (fg_add_looked_up_negative where it shifts right): the rounding divide's sign step masked by the shift. */
static void fg_add_looked_up(const fg_add_params *p, const int8_t *input1, const int8_t *input2, int8_t *output,
                             const int32_t *table1, const int32_t *table2, int32x4_t out_right, int32x4_t low,
                             int32x4_t high) {
    __asm__ volatile("vldrb.u32 q0, [%[in1]], #4\n"
                     "vldrb.u32 q1, [%[in2]], #4\n"
                     "vldrw.u32 q2, [%[t1], q0, uxtw #2]\n"
                     "vldrw.u32 q3, [%[t2], q1, uxtw #2]\n"
                     "dlstp.32 lr, %[n]\n"
                     "1:\n"
                     "vadd.i32 q2, q2, q3\n"
                     "vqrdmulh.s32 q2, q2, %[multiplier]\n"
                     "vldrb.u32 q0, [%[in1]], #4\n"
                     "vand q3, q2, %q[right]\n"
                     "vshr.s32 q3, q3, #31\n"
                     "vldrb.u32 q1, [%[in2]], #4\n"
                     "vqadd.s32 q2, q2, q3\n"
                     "vrshl.s32 q2, q2, %q[right]\n"
                     "vadd.i32 q2, q2, %[offset]\n"
                     "vmax.s32 q2, q2, %q[lo]\n"
                     "vldrw.u32 q3, [%[t2], q1, uxtw #2]\n"
                     "vmin.s32 q2, q2, %q[hi]\n"
                     "vstrb.32 q2, [%[out]], #4\n"
                     "vldrw.u32 q2, [%[t1], q0, uxtw #2]\n"
                     "letp lr, 1b\n"
                     "vadd.i32 q2, q2, q3\n"  /* the last whole step: the loop's body without the loads */
                     "vqrdmulh.s32 q2, q2, %[multiplier]\n"
                     "vand q3, q2, %q[right]\n"
                     "vshr.s32 q3, q3, #31\n"
                     "vqadd.s32 q2, q2, q3\n"
                     "vrshl.s32 q2, q2, %q[right]\n"
                     "vadd.i32 q2, q2, %[offset]\n"
                     "vmax.s32 q2, q2, %q[lo]\n"
                     "vmin.s32 q2, q2, %q[hi]\n"
                     "vstrb.32 q2, [%[out]], #4\n"
                     : [in1] "+l"(input1), [in2] "+l"(input2), [out] "+l"(output)
                     : [n] "r"((p->shape.dims[FG_BROADCAST_MAX_DIMS - 1] & ~3) - 4), [t1] "r"(table1), [t2] "r"(table2),
                       [multiplier] "r"(p->output_multiplier), [offset] "r"(p->output_offset),
                       [right] "w"(out_right), [lo] "w"(low), [hi] "w"(high)
                     : "lr", "q0", "q1", "q2", "q3", "memory");
}

/* The looked-up loop where the output shifts right, over the whole steps of four (the caller does the last one to
 * three elements), pipelined three steps deep: a step stores the step before's outputs, requantizes its own sum,
 * gathers the next step's table values and adds them, and loads the bytes of the step after (never past the whole
 * steps; stores still after every read of their elements, as ops/overlap.py asks). The sums are a VMLA by 1 and the
 * multiply a VQRDMULH: both on the multiplier's pipeline, the rest on the vector ALU's, the gathers and the other loads
 * beside them (llvm-mca's M55 model: 13 cycles a step, 18 with one step in flight). Stages, each on fixed registers:
 * BYTES into q0, q1; SUM gathers into q4, q5 (q0, q1 read) and adds into q4; MULTIPLY q4 into q3; ROUND q3 into q2
 * (q1 as scratch: after SUM, before BYTES); STORE q2. */
#define FG_ADD_BYTES "vldrb.u32 q0, [%[in1]], #4\n" "vldrb.u32 q1, [%[in2]], #4\n"
#define FG_ADD_SUM                           \
    "vldrw.u32 q4, [%[t1], q0, uxtw #2]\n"   \
    "vldrw.u32 q5, [%[t2], q1, uxtw #2]\n"   \
    "vmla.s32 q4, q5, %[one]\n"
#define FG_ADD_MULTIPLY "vqrdmulh.s32 q3, q4, %[multiplier]\n"
#define FG_ADD_ROUND                                                                               \
    FG_ADD_ROUND_RIGHT(SIGN, "q3", "q1", "%[shift]") FG_ADD_ROUND_RIGHT(ADD, "q3", "q1", "%[shift]") \
    FG_ADD_ROUND_RIGHT(SHIFT, "q3", "q1", "%[shift]") "vadd.i32 q2, q3, %[offset]\n"
#define FG_ADD_STORE "vmax.s32 q2, q2, %q[lo]\n" "vmin.s32 q2, q2, %q[hi]\n" "vstrb.32 q2, [%[out]], #4\n"
/* Not inlined: its operands take every register but two. */
__attribute__((noinline)) static void fg_add_looked_up_negative(const fg_add_params *p, const int8_t *input1,
                                                                const int8_t *input2, int8_t *output,
                                                                const int32_t *table1, const int32_t *table2,
                                                                int32x4_t low, int32x4_t high) {
    __asm__ volatile(FG_ADD_BYTES FG_ADD_SUM FG_ADD_MULTIPLY FG_ADD_BYTES FG_ADD_SUM FG_ADD_ROUND FG_ADD_BYTES
                     "dls lr, %[rounds]\n"
                     "1:\n"  /* FG_ADD_MULTIPLY, FG_ADD_STORE, FG_ADD_SUM, FG_ADD_ROUND and FG_ADD_BYTES interleaved */
                     "vqrdmulh.s32 q3, q4, %[multiplier]\n"
                     "vmax.s32 q2, q2, %q[lo]\n"
                     "vldrw.u32 q4, [%[t1], q0, uxtw #2]\n"
                     "vmin.s32 q2, q2, %q[hi]\n"
                     "vldrw.u32 q5, [%[t2], q1, uxtw #2]\n"
                     "vshr.s32 q1, q3, #31\n"
                     "vstrb.32 q2, [%[out]], #4\n"
                     "vqadd.s32 q3, q3, q1\n"
                     "vldrb.u32 q0, [%[in1]], #4\n"
                     "vrshl.s32 q3, %[shift]\n"
                     "vldrb.u32 q1, [%[in2]], #4\n"
                     "vmla.s32 q4, q5, %[one]\n"
                     "vadd.i32 q2, q3, %[offset]\n"
                     "le lr, 1b\n"
                     FG_ADD_MULTIPLY FG_ADD_STORE FG_ADD_SUM FG_ADD_ROUND
                     FG_ADD_MULTIPLY FG_ADD_STORE FG_ADD_ROUND FG_ADD_STORE
                     : [in1] "+l"(input1), [in2] "+l"(input2), [out] "+l"(output)
                     : [rounds] "r"((p->shape.dims[FG_BROADCAST_MAX_DIMS - 1] >> 2) - 3), [t1] "r"(table1),
                       [t2] "r"(table2), [multiplier] "r"(p->output_multiplier), [offset] "r"(p->output_offset),
                       [shift] "r"(p->output_shift), [one] "r"(1), [lo] "w"(low), [hi] "w"(high)
                     : "lr", "q0", "q1", "q2", "q3", "q4", "q5", "memory");
}

/* Four elements per step (int32 lanes: the inputs are scaled by 2^20), each stored after both its inputs are read
 * (the output may be either input, as ops/overlap.py allows). A long run looks each input's scaled value up in a
 * table of its 256 bytes (a gathering load) instead of scaling it. */
FG_HOT_LOOP void fg_add_s8_mve(const fg_add_params *p, const int8_t *input1, const int8_t *input2, int8_t *output) {
    const int32_t n = p->shape.dims[FG_BROADCAST_MAX_DIMS - 1];
    const int32_t offset1 = p->input1_offset, offset2 = p->input2_offset, left = p->left_shift;
    const int32_t multiplier1 = p->input1_multiplier, multiplier2 = p->input2_multiplier;
    const int32x4_t right1 = vdupq_n_s32(p->input1_shift), right2 = vdupq_n_s32(p->input2_shift);
    const int32x4_t out_right = vdupq_n_s32(p->output_shift);
    const int32x4_t low = vdupq_n_s32(p->activation_min), high = vdupq_n_s32(p->activation_max);
    int32_t i = 0;
    if (n >= FG_ADD_TABLE_MIN) {
        int32_t table1[256], table2[256];
        const int32_t shift1 = p->input1_shift, shift2 = p->input2_shift;
        if ((shift1 == 0 && shift2 < 0) || (shift1 < 0 && shift2 == 0)) {
            const int32x4_t first = vreinterpretq_s32_u32(vidupq_n_u32((uint32_t)-128, 1));
            (shift2 ? fg_add_tables_second_right : fg_add_tables_first_right)(
                table1, table2, vshlq_r_s32(vaddq_n_s32(first, offset1), left),
                vshlq_r_s32(vaddq_n_s32(first, offset2), left), p);
        } else {
            fg_add_table(table1, offset1, left, multiplier1, p->input1_shift);
            fg_add_table(table2, offset2, left, multiplier2, p->input2_shift);
        }
        if (p->output_shift >= 0) {
            fg_add_looked_up(p, input1, input2, output, table1, table2, out_right, low, high);
        } else {
            fg_add_looked_up_negative(p, input1, input2, output, table1, table2, low, high);
        }
        i = n & ~3;
    }
    for (; i + 4 <= n; i += 4) {
        const int32x4_t a = fg_add_scale(vldrbq_s32(input1 + i), offset1, left, multiplier1, right1);
        const int32x4_t b = fg_add_scale(vldrbq_s32(input2 + i), offset2, left, multiplier2, right2);
        vstrbq_s32(output + i, fg_add_rescale4(a, b, p, out_right, low, high));
    }
    if (i < n) {  /* the last one to three elements */
        const mve_pred16_t lanes = vctp32q((uint32_t)(n - i));
        const int32x4_t a = fg_add_scale(vldrbq_z_s32(input1 + i, lanes), offset1, left, multiplier1, right1);
        const int32x4_t b = fg_add_scale(vldrbq_z_s32(input2 + i, lanes), offset2, left, multiplier2, right2);
        vstrbq_p_s32(output + i, fg_add_rescale4(a, b, p, out_right, low, high), lanes);
    }
}

#endif /* __ARM_FEATURE_MVE */
