#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* The run of `span` bytes starting `start` bytes into `line` (negative: left of it), of which bytes [lo, hi) lie in the
 * line: those loaded (the lanes outside them never touch memory), the others the zero point. Whole vectors stored. */
static inline void fg_mve_border_run(int8_t *row, const int8_t *line, int32_t start, int32_t lo, int32_t hi,
                                     int32_t span, int8_t zero_point) {
    const int8x16_t zero_points = vdupq_n_s8(zero_point);
    const uintptr_t from = (uintptr_t)line + (uintptr_t)(intptr_t)start;
    for (int32_t k = 0; k < span; k += 16) {
        const int32_t below = lo - k > 0 ? lo - k : 0, above = hi - k > 0 ? hi - k : 0;
        const mve_pred16_t inside = (mve_pred16_t)(vctp8q((uint32_t)above) & ~vctp8q((uint32_t)below));
        const int8x16_t loaded = vldrbq_z_s8((const int8_t *)(from + (uintptr_t)k), inside);
        vstrbq_s8(row + k, vpselq_s8(loaded, zero_points, inside));
    }
}

/* The window of output pixel (oy, ox) as one row of filter_h * filter_w * in_c bytes, in the filter's order; taps in
 * the padding read the input zero point (the folded bias expects x + input_offset = 0 there). */
static void fg_mve_window_row(const fg_conv2d_params *p, const int8_t *image, int32_t oy, int32_t ox, int8_t *row) {
    const int32_t in_c = p->in_c, span = p->filter_w * in_c, line_bytes = p->in_w * in_c;
    const int8_t zero_point = (int8_t)-p->requant.input_offset;
    const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
    const int columns_inside = p->dilation_w == 1 && x0 >= 0 && x0 + p->filter_w <= p->in_w;
    if (columns_inside && y0 >= 0 && y0 + (p->filter_h - 1) * p->dilation_h < p->in_h) {
        const int8_t *line = image + y0 * line_bytes + x0 * in_c;
        const int32_t step = p->dilation_h * line_bytes;
        for (int32_t fy = 0; fy < p->filter_h; ++fy, row += span, line += step) {
            fg_mve_copy_s8(row, line, span);
        }
        return;
    }
    for (int32_t fy = 0; fy < p->filter_h; ++fy, row += span) {
        const int32_t y = y0 + fy * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            fg_mve_fill_s8(row, zero_point, span);
            continue;
        }
        const int8_t *line = image + y * line_bytes;  /* a row in the image */
        if (columns_inside) {
            fg_mve_copy_s8(row, line + x0 * in_c, span);
            continue;
        }
        if (p->dilation_w == 1) {
            fg_mve_border_run(row, line, x0 * in_c, (x0 < 0 ? -x0 : 0) * in_c,
                              (x0 + p->filter_w > p->in_w ? p->in_w - x0 : p->filter_w) * in_c, span, zero_point);
            continue;
        }
        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
            const int32_t x = x0 + fx * p->dilation_w;
            if (x < 0 || x >= p->in_w) {
                fg_mve_fill_s8(row + fx * in_c, zero_point, in_c);
            } else {
                fg_mve_copy_s8(row + fx * in_c, line + x * in_c, in_c);
            }
        }
    }
}

/* `runs` runs of `span` bytes, `step` apart in the input, one after the other in row. Whole vectors are stored
 * (the next run, or the row's 16 bytes of slack, takes what lands past a run); the load of a run's last vector is
 * predicated to the run, so nothing past the input is read. Assembly: GCC moves the predicate through memory. SUM:
 * what each loaded vector adds to the sum (nothing, or FG_MVE_SUM_RUNS). */
#define FG_MVE_COPY_RUNS(SUM)                                                                                 \
    "vmrs %[saved], p0\n"  /* GCC may hold a predicate there; VPR is no clobber it knows */                  \
    "vctp.8 %[tail]\n"                                                                                        \
    "1:\n"                                                                                                    \
    "movs %[k], %[whole]\n"                                                                                   \
    "beq 3f\n"                                                                                                \
    "2:\n"                                                                                                    \
    "vldrb.8 q0, [%[src]], #16\n" SUM                                                                         \
    "vstrb.8 q0, [%[dst]], #16\n"                                                                             \
    "subs %[k], %[k], #1\n"                                                                                   \
    "bne 2b\n"                                                                                                \
    "3:\n"                                                                                                    \
    "vpst\n"                                                                                                  \
    "vldrbt.8 q0, [%[src]]\n" SUM                                                                             \
    "vstrb.8 q0, [%[dst]]\n"                                                                                  \
    "add %[dst], %[dst], %[tail]\n"                                                                           \
    "add %[src], %[src], %[gap]\n"                                                                            \
    "subs %[runs], %[runs], #1\n"                                                                             \
    "bne 1b\n"                                                                                                \
    "vmsr p0, %[saved]\n"
/* The same for runs of at most 16 bytes (one predicated vector each), as a low-overhead loop over the runs. */
#define FG_MVE_COPY_SHORT_RUNS(SUM)                                                                           \
    "vmrs %[saved], p0\n"                                                                                     \
    "vctp.8 %[tail]\n"                                                                                        \
    "dls lr, %[runs]\n"                                                                                       \
    "1:\n"                                                                                                    \
    "vpst\n"                                                                                                  \
    "vldrbt.8 q0, [%[src]]\n" SUM                                                                             \
    "vstrb.8 q0, [%[dst]]\n"                                                                                  \
    "add %[dst], %[dst], %[tail]\n"                                                                           \
    "add %[src], %[src], %[gap]\n"                                                                            \
    "le lr, 1b\n"                                                                                             \
    "vmsr p0, %[saved]\n"
#define FG_MVE_SUM_RUNS "vaddva.s8 %[sum], q0\n"  /* the predicated load zeroes the lanes past the run */
#define FG_MVE_COPY_RUNS_OPERANDS                                                                             \
    [src] "+r"(line), [dst] "+r"(row), [runs] "+r"(runs), [k] "=&r"(k), [saved] "=&r"(saved)

static inline void fg_mve_copy_runs(int8_t *row, const int8_t *line, int32_t runs, int32_t span, int32_t step) {
    const uint32_t tail = (uint32_t)(((span - 1) & 15) + 1);
    const int32_t whole = (span - 1) >> 4, gap = step - 16 * whole;  /* vectors before the last; source skip */
    int32_t k, saved;
    if (whole == 0) {
        __asm__ volatile(FG_MVE_COPY_SHORT_RUNS("")
                         : [src] "+r"(line), [dst] "+r"(row), [saved] "=&r"(saved)
                         : [runs] "r"(runs), [tail] "r"(tail), [gap] "r"(gap)
                         : "lr", "q0", "memory", "cc");
        return;
    }
    __asm__ volatile(FG_MVE_COPY_RUNS("")
                     : FG_MVE_COPY_RUNS_OPERANDS
                     : [tail] "r"(tail), [whole] "r"(whole), [gap] "r"(gap)
                     : "q0", "memory", "cc");
}

/* fg_mve_copy_runs, returning the sum of the bytes copied (VADDVA wants an even register: r4). */
static inline int32_t fg_mve_copy_runs_sum(int8_t *row, const int8_t *line, int32_t runs, int32_t span,
                                           int32_t step) {
    const uint32_t tail = (uint32_t)(((span - 1) & 15) + 1);
    const int32_t whole = (span - 1) >> 4, gap = step - 16 * whole;
    int32_t k, saved;
    register int32_t sum __asm__("r4") = 0;
    if (whole == 0) {
        __asm__ volatile(FG_MVE_COPY_SHORT_RUNS(FG_MVE_SUM_RUNS)
                         : [src] "+r"(line), [dst] "+r"(row), [saved] "=&r"(saved), [sum] "+r"(sum)
                         : [runs] "r"(runs), [tail] "r"(tail), [gap] "r"(gap)
                         : "lr", "q0", "memory", "cc");
        return sum;
    }
    __asm__ volatile(FG_MVE_COPY_RUNS(FG_MVE_SUM_RUNS)
                     : FG_MVE_COPY_RUNS_OPERANDS, [sum] "+r"(sum)
                     : [tail] "r"(tail), [whole] "r"(whole), [gap] "r"(gap)
                     : "q0", "memory", "cc");
    return sum;
}

/* `windows` windows of `runs` runs of at most 16 bytes (`span`, `step` apart), each `advance` bytes after the one
 * before in the input, one after the other in row (each window runs x span bytes): fg_mve_copy_runs' short runs for a
 * whole stretch of an output row in one assembly loop, its predicate set once. */
static inline void fg_mve_copy_short_windows(int8_t *row, const int8_t *first, int32_t windows, int32_t advance,
                                             int32_t runs, int32_t span, int32_t step) {
    int32_t saved;
    const int8_t *line;
    __asm__ volatile("vmrs %[saved], p0\n"
                     "vctp.8 %[span]\n"
                     "1:\n"
                     "mov %[line], %[first]\n"
                     "dls lr, %[runs]\n"
                     "2:\n"
                     "vpst\n"
                     "vldrbt.8 q0, [%[line]]\n"
                     "vstrb.8 q0, [%[row]]\n"
                     "add %[row], %[row], %[span]\n"
                     "add %[line], %[line], %[step]\n"
                     "le lr, 2b\n"
                     "add %[first], %[first], %[advance]\n"
                     "subs %[windows], %[windows], #1\n"
                     "bne 1b\n"
                     "vmsr p0, %[saved]\n"
                     : [row] "+r"(row), [first] "+r"(first), [windows] "+r"(windows), [line] "=&r"(line),
                       [saved] "=&r"(saved)
                     : [runs] "r"(runs), [span] "r"(span), [step] "r"(step), [advance] "r"(advance)
                     : "lr", "q0", "memory", "cc");
}

/* The largest band of tap rows on the stack. */
enum { FG_MVE_FOLDED_BAND_MAX = 2048 };

/* The band of a layer with padding whose windows' rows are runs (no dilation across), when it fits the stack: every
 * window then copied run by run from the band, none at the border. Its width in pixels, or 0. */
static int32_t fg_mve_folded_band_width(const fg_conv2d_params *p) {
    const int32_t width = (p->out_w - 1) * p->stride_w + p->filter_w;
    const int32_t bottom = (p->out_h - 1) * p->stride_h - p->pad_top + (p->filter_h - 1) * p->dilation_h;
    const int padded = p->pad_top > 0 || p->pad_left > 0 || bottom >= p->in_h || width - p->pad_left > p->in_w;
    const int fits = p->filter_h * width * p->in_c <= FG_MVE_FOLDED_BAND_MAX;
    return padded && fits && p->dilation_w == 1 ? width : 0;
}

/* The band of the next output row (windows `advance` image rows further down; tap rows one image row apart, fewer
 * than `advance` new): the lines it shares with the band before moved to the top (a forward copy, each vector read
 * before a store reaches it), then its new lines. */
static void fg_mve_band_advance(const fg_mve_band *b, const int8_t *image, int32_t y0, int32_t advance, int8_t *band) {
    const int32_t line = b->width * b->channels, kept = b->rows - advance;
    fg_mve_copy_s8(band, band + advance * line, kept * line);
    fg_mve_band fresh = *b;
    fresh.rows = advance;
    fg_mve_band_rows(&fresh, image, y0 + kept, band + kept * line);
}

/* The windows' stack buffer: two of the longest rows, and the slack past the last window that the copies' whole
 * vectors and the GEMM's reads (up to 15 bytes past a window's last 16 taps, and 16 after) reach. */
enum { FG_MVE_WINDOW_SLACK = 32, FG_MVE_WINDOWS_BYTES = 2 * FG_MVE_ROW_MAX + FG_MVE_WINDOW_SLACK };

/* Output pixels in raster order, their windows copied to the stack before any of them is stored, so an output
 * overlapping the input as ops/overlap.py allows never changes what a window reads. A window inside the image (no
 * dilation across) is copied run by run; one at the border through fg_mve_window_row. The int8 layout whose blocks
 * are all full takes as many windows as the buffer holds, `depth` bytes apart, in pairs through one call of its
 * pipelined pairs loop (`pairs`, a fg_mve_pairs_loop: no call and no loop start per pair); otherwise two windows, then
 * the GEMM of `layout`: its full blocks through the assembly loop, the rest through its gemm. A last lone window
 * through its gemm. */
__attribute__((always_inline)) static inline void fg_mve_folded(const fg_conv2d_params *p, const int8_t *input,
                                                                int8_t *output, fg_mve_gemm_layout layout,
                                                                fg_mve_pairs_loop *pairs) {
    const int32_t in_c = p->in_c, depth = p->filter_h * p->filter_w * in_c, out_c = p->out_c;
    const int32_t line_bytes = p->in_w * in_c, image_bytes = p->in_h * line_bytes;
    const int32_t span = p->filter_w * in_c, step = p->dilation_h * line_bytes, runs = p->filter_h;
    const int32_t reach_y = (p->filter_h - 1) * p->dilation_h;
    const fg_requant_params requant = p->requant;
    const int shifts_left = fg_mve_any_left_shift(&requant, out_c);
    const int32_t *packed = (const int32_t *)p->packed;
    int8_t windows[FG_MVE_WINDOWS_BYTES];
    const fg_mve_clamp clamp = fg_mve_make_clamp(&requant);
    fg_mve_gemm_state plain;  /* the pairs' full blocks straight to the assembly loop, set up once */
    fg_mve_gemm_state_s4 with_sums;  /* the same, and the rows' sums, for a layout that wants them */
    fg_mve_gemm_state *st = layout.sums ? &with_sums.gemm : &plain;
    if (layout.sums) {
        fg_mve_begin_row_terms(&with_sums);
    }
    const int32_t full = fg_mve_gemm_begin_layout(st, depth, out_c, packed, (uint32_t)out_c, layout.step_words);
    const int32_t *rest = packed + fg_mve_block_words(depth, layout.step_words) * (full >> 2);
    const int batched = layout.blocks2 == fg_mve_gemm_blocks2 && full == out_c;
    const int32_t stride = batched ? depth : FG_MVE_ROW_MAX;
    const int32_t capacity = batched ? ((FG_MVE_WINDOWS_BYTES - FG_MVE_WINDOW_SLACK) / depth) & ~1 : 2;
    st->pair_advance = 2 * stride;
    int8_t band[FG_MVE_FOLDED_BAND_MAX];
    const int32_t band_width = fg_mve_folded_band_width(p), band_line = band_width * in_c;
    const fg_mve_band tap_rows = {p->filter_h, p->dilation_h, p->in_h, p->in_w, in_c, p->pad_left, band_width,
                                  (int8_t)-requant.input_offset};
    if (band_width) {
        fg_mve_band_begin(&tap_rows, band);
    }
    int32_t pending = 0;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * image_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            const int rows_inside = band_width || (y0 >= 0 && y0 + reach_y < p->in_h && p->dilation_w == 1);
            if (band_width && oy > 0 && p->dilation_h == 1 && p->stride_h < p->filter_h) {
                fg_mve_band_advance(&tap_rows, image, y0, p->stride_h, band);
            } else if (band_width) {
                fg_mve_band_rows(&tap_rows, image, y0, band);
            }
            for (int32_t ox = 0; ox < p->out_w;) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                int8_t *window = windows + pending * stride;
                if (band_width || (rows_inside && x0 >= 0 && x0 + p->filter_w <= p->in_w)) {
                    const int8_t *first = band_width ? band + ox * p->stride_w * in_c
                                                     : image + y0 * line_bytes + x0 * in_c;
                    const int32_t gap = band_width ? band_line : step;
                    if (batched && span <= 16) {  /* the row's windows inside, as many as the buffer takes */
                        int32_t count = 1;
                        while (ox + count < p->out_w && pending + count < capacity &&
                               (band_width || (ox + count) * p->stride_w - p->pad_left + p->filter_w <= p->in_w)) {
                            ++count;
                        }
                        fg_mve_copy_short_windows(window, first, count, p->stride_w * in_c, runs, span, gap);
                        pending += count - 1;
                        ox += count - 1;
                    } else if (layout.sums) {  /* the layout wants each window's sum: taken as it is copied */
                        const int32_t sum = fg_mve_copy_runs_sum(window, first, runs, span, gap);
                        fg_mve_set_row_sum(&with_sums, pending, sum);
                    } else {
                        fg_mve_copy_runs(window, first, runs, span, gap);
                    }
                } else {
                    fg_mve_window_row(p, image, oy, ox, window);
                    if (layout.sums) {
                        fg_mve_set_row_sum(&with_sums, pending, fg_mve_row_sum(window, depth));
                    }
                }
                ++ox;
                if (++pending < capacity) {
                    continue;
                }
                st->x0 = windows;
                st->x1 = windows + stride;
                fg_mve_gemm_set_out(st, output);
                if (batched) {
                    st->pairs_after = (pending >> 1) - 1;
                    pairs(st, packed, &clamp, shifts_left);
                } else {
                    if (full) {
                        layout.blocks2(st, packed, &clamp, shifts_left);
                    }
                    if (full < out_c) {
                        layout.gemm(windows, windows + stride, depth, out_c - full, rest, &requant, shifts_left,
                                    output + full, output + out_c + full);
                    }
                }
                output += pending * out_c;
                pending = 0;
            }
        }
    }
    if (pending > 1) {  /* batched: the pairs of a last short batch */
        st->x0 = windows;
        st->x1 = windows + stride;
        st->pairs_after = (pending >> 1) - 1;
        fg_mve_gemm_set_out(st, output);
        pairs(st, packed, &clamp, shifts_left);
        output += (pending & ~1) * out_c;
    }
    if (pending & 1) {
        layout.gemm(windows + (pending - 1) * stride, 0, depth, out_c, packed, &requant, shifts_left, output, 0);
    }
}

__attribute__((noinline)) FG_HOT_LOOP static void fg_folded_s8(const fg_conv2d_params *p, const int8_t *input,
                                                               int8_t *output, fg_mve_pairs_loop *pairs) {
    fg_mve_folded(p, input, output, FG_MVE_GEMM_S8, pairs);
}

void fg_conv2d_folded_s8_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {
    (void)filter;
    fg_folded_s8(p, input, output, fg_mve_gemm_blocks2_pairs);
}

/* The entry point running the pairs through LOOP (fg/variants_mve.h). */
#define FG_FOLDED_ENTRY(NAME, LOOP)                                                                                \
    void NAME(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter, int8_t *output) {              \
        (void)filter;                                                                                              \
        fg_folded_s8(p, input, output, LOOP);                                                                      \
    }
FG_FOLDED_ENTRY(fg_conv2d_folded_by_one_s8_mve, fg_mve_pairs_by_one)
FG_FOLDED_ENTRY(fg_conv2d_folded_unpipelined_s8_mve, fg_mve_pairs_unpipelined)
FG_FOLDED_ENTRY(fg_conv2d_folded_one_s8_mve, fg_mve_pairs_one)
FG_FOLDED_ENTRY(fg_conv2d_folded_two_s8_mve, fg_mve_pairs_two)
FG_FOLDED_ENTRY(fg_conv2d_folded_three_s8_mve, fg_mve_pairs_three)
FG_FOLDED_ENTRY(fg_conv2d_folded_unrolled_s8_mve, fg_mve_pairs_unrolled)
FG_FOLDED_ENTRY(fg_conv2d_folded_nine_s8_mve, fg_mve_pairs_nine)
FG_FOLDED_ENTRY(fg_conv2d_folded_spread_s8_mve, fg_mve_pairs_spread)
FG_FOLDED_ENTRY(fg_conv2d_folded_eighteen_s8_mve, fg_mve_pairs_eighteen)
FG_FOLDED_ENTRY(fg_conv2d_folded_thirty_six_s8_mve, fg_mve_pairs_thirty_six)

FG_HOT_LOOP void fg_conv2d_s4_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                  int8_t *output) {
    (void)filter;
    fg_mve_folded(p, input, output, FG_MVE_GEMM_S4, fg_mve_pairs_by_one);  /* never batched */
}

FG_HOT_LOOP void fg_conv2d_s4_offset_mve(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                         int8_t *output) {
    (void)filter;
    fg_mve_folded(p, input, output, FG_MVE_GEMM_S4_OFFSET, fg_mve_pairs_by_one);
}

#endif /* __ARM_FEATURE_MVE */
