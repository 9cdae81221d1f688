#include <string.h>

#include "fg/depthwise_conv2d.h"
#include "fg/support/dot_s8.h"

/* acc[k] = bias + the taps of channel first + k, k < count, of a 3x3 window inside the image (r0 is its top left). */
FG_HOT_LOOP static void fg_dw3x3_interior(const int8_t *r0, int32_t row_step, int32_t col_step, const int8_t *w,
                                          const int32_t *bias, int32_t count, uint32_t *acc) {
    const int8_t *r1 = r0 + row_step, *r2 = r1 + row_step;
    const int32_t c2 = 2 * col_step;
    for (int32_t k = 0; k < count; ++k, w += 9) {
        const int32_t sum = w[0] * r0[k] + w[1] * r0[k + col_step] + w[2] * r0[k + c2]
                          + w[3] * r1[k] + w[4] * r1[k + col_step] + w[5] * r1[k + c2]
                          + w[6] * r2[k] + w[7] * r2[k + col_step] + w[8] * r2[k + c2];
        acc[k] = (uint32_t)bias[k] + (uint32_t)sum;
    }
}

/* The same for two windows inside the image, the second pixel_step bytes after the first: each weight loaded once
 * for both; when the second window starts one column after the first (stride = dilation), the inputs the two
 * share are loaded once too. */

/* Adds the 3x3 taps *w (advanced past them) of two windows pixel_step bytes apart to *sum0, *sum1, each weight loaded
 * once for both; when the windows are one column apart (stride = dilation) four inputs per row, the two windows
 * sharing three, else six. */
#if defined(__arm__) && defined(__thumb2__)
#define FG_DW_ADJACENT_ROW                                  \
    "ldrsb %[x0], [%[p]]\n\t"                              \
    "ldrsb %[x1], [%[p], %[cs]]\n\t"                       \
    "add %[t], %[p], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x2], [%[t]]\n\t"                              \
    "ldrsb %[t], [%[t], %[cs]]\n\t"                        \
    "ldrsb %[wt], [%[w]], #1\n\t"                          \
    "mla %[s0], %[wt], %[x0], %[s0]\n\t"                   \
    "mla %[s1], %[wt], %[x1], %[s1]\n\t"                   \
    "ldrsb %[wt], [%[w]], #1\n\t"                          \
    "mla %[s0], %[wt], %[x1], %[s0]\n\t"                   \
    "mla %[s1], %[wt], %[x2], %[s1]\n\t"                   \
    "ldrsb %[wt], [%[w]], #1\n\t"                          \
    "mla %[s0], %[wt], %[x2], %[s0]\n\t"                   \
    "mla %[s1], %[wt], %[t], %[s1]\n\t"
#define FG_DW_APART_ROW                                     \
    "ldrsb %[x0], [%[p]]\n\t"                              \
    "ldrsb %[x1], [%[p], %[cs]]\n\t"                       \
    "add %[t], %[p], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x2], [%[t]]\n\t"                              \
    "ldrsb %[wt], [%[w]], #1\n\t"                          \
    "mla %[s0], %[wt], %[x0], %[s0]\n\t"                   \
    "ldrsb %[x0], [%[p], %[ps]]\n\t"                       \
    "mla %[s1], %[wt], %[x0], %[s1]\n\t"                   \
    "ldrsb %[wt], [%[w]], #1\n\t"                          \
    "mla %[s0], %[wt], %[x1], %[s0]\n\t"                   \
    "add %[t], %[p], %[ps]\n\t"                            \
    "ldrsb %[x1], [%[t], %[cs]]\n\t"                       \
    "mla %[s1], %[wt], %[x1], %[s1]\n\t"                   \
    "ldrsb %[wt], [%[w]], #1\n\t"                          \
    "mla %[s0], %[wt], %[x2], %[s0]\n\t"                   \
    "add %[t], %[t], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x2], [%[t]]\n\t"                              \
    "mla %[s1], %[wt], %[x2], %[s1]\n\t"
#define FG_DW_THREE_ROWS(row) row "add %[p], %[p], %[rs]\n\t" row "add %[p], %[p], %[rs]\n\t" row
#endif

static inline void fg_dw3x3_pair_taps(const int8_t *row, int32_t row_step, int32_t col_step, int32_t pixel_step,
                                      const int8_t **w, int32_t *sum0, int32_t *sum1) {
#if defined(__arm__) && defined(__thumb2__)
    int32_t x0, x1, x2, t, wt;
    const int8_t *p = row;
    if (pixel_step == col_step) {
        __asm__(FG_DW_THREE_ROWS(FG_DW_ADJACENT_ROW)
                : [s0] "+r"(*sum0), [s1] "+r"(*sum1), [w] "+r"(*w), [p] "+r"(p), [x0] "=&r"(x0), [x1] "=&r"(x1),
                  [x2] "=&r"(x2), [t] "=&r"(t), [wt] "=&r"(wt)
                : [cs] "r"(col_step), [rs] "r"(row_step)
                : "memory");
    } else {
        __asm__(FG_DW_THREE_ROWS(FG_DW_APART_ROW)
                : [s0] "+r"(*sum0), [s1] "+r"(*sum1), [w] "+r"(*w), [p] "+r"(p), [x0] "=&r"(x0), [x1] "=&r"(x1),
                  [x2] "=&r"(x2), [t] "=&r"(t), [wt] "=&r"(wt)
                : [cs] "r"(col_step), [rs] "r"(row_step), [ps] "r"(pixel_step)
                : "memory");
    }
#else
    const int8_t *taps = *w;
    for (int32_t r = 0; r < 3; ++r, row += row_step, taps += 3) {
        const int8_t *second = row + pixel_step;
        *sum0 += taps[0] * row[0] + taps[1] * row[col_step] + taps[2] * row[2 * col_step];
        *sum1 += taps[0] * second[0] + taps[1] * second[col_step] + taps[2] * second[2 * col_step];
    }
    *w = taps;
#endif
}

FG_HOT_LOOP static void fg_dw3x3_interior2(const int8_t *r0, int32_t row_step, int32_t col_step, int32_t pixel_step,
                                           const int8_t *w, const int32_t *bias, int32_t count, uint32_t *acc0,
                                           uint32_t *acc1) {
    for (int32_t k = 0; k < count; ++k) {
        int32_t sum0 = 0, sum1 = 0;
        fg_dw3x3_pair_taps(r0 + k, row_step, col_step, pixel_step, &w, &sum0, &sum1);
        acc0[k] = (uint32_t)bias[k] + (uint32_t)sum0;
        acc1[k] = (uint32_t)bias[k] + (uint32_t)sum1;
    }
}

/* Adds one filter row (weights w0..w2) of four windows side by side to s0..s3, each weight in a register for all
 * four, each input of the row loaded once: ADJACENT, windows one column apart (stride = dilation: six inputs);
 * APART, two columns apart (stride = 2 x dilation: nine inputs). */
#if defined(__arm__) && defined(__thumb2__)
#define FG_DW_QUAD_ADJACENT_ROW                             \
    "ldrsb %[x], [%[p]]\n\t"                               \
    "mla %[s0], %[w0], %[x], %[s0]\n\t"                    \
    "ldrsb %[x], [%[p], %[cs]]\n\t"                        \
    "mla %[s0], %[w1], %[x], %[s0]\n\t"                    \
    "mla %[s1], %[w0], %[x], %[s1]\n\t"                    \
    "add %[t], %[p], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x], [%[t]]\n\t"                               \
    "mla %[s0], %[w2], %[x], %[s0]\n\t"                    \
    "mla %[s1], %[w1], %[x], %[s1]\n\t"                    \
    "mla %[s2], %[w0], %[x], %[s2]\n\t"                    \
    "ldrsb %[x], [%[t], %[cs]]\n\t"                        \
    "mla %[s1], %[w2], %[x], %[s1]\n\t"                    \
    "mla %[s2], %[w1], %[x], %[s2]\n\t"                    \
    "mla %[s3], %[w0], %[x], %[s3]\n\t"                    \
    "add %[t], %[t], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x], [%[t]]\n\t"                               \
    "mla %[s2], %[w2], %[x], %[s2]\n\t"                    \
    "mla %[s3], %[w1], %[x], %[s3]\n\t"                    \
    "ldrsb %[x], [%[t], %[cs]]\n\t"                        \
    "mla %[s3], %[w2], %[x], %[s3]\n\t"
#define FG_DW_QUAD_APART_ROW                                \
    "ldrsb %[x], [%[p]]\n\t"                               \
    "mla %[s0], %[w0], %[x], %[s0]\n\t"                    \
    "ldrsb %[x], [%[p], %[cs]]\n\t"                        \
    "mla %[s0], %[w1], %[x], %[s0]\n\t"                    \
    "add %[t], %[p], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x], [%[t]]\n\t"                               \
    "mla %[s0], %[w2], %[x], %[s0]\n\t"                    \
    "mla %[s1], %[w0], %[x], %[s1]\n\t"                    \
    "ldrsb %[x], [%[t], %[cs]]\n\t"                        \
    "mla %[s1], %[w1], %[x], %[s1]\n\t"                    \
    "add %[t], %[t], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x], [%[t]]\n\t"                               \
    "mla %[s1], %[w2], %[x], %[s1]\n\t"                    \
    "mla %[s2], %[w0], %[x], %[s2]\n\t"                    \
    "ldrsb %[x], [%[t], %[cs]]\n\t"                        \
    "mla %[s2], %[w1], %[x], %[s2]\n\t"                    \
    "add %[t], %[t], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x], [%[t]]\n\t"                               \
    "mla %[s2], %[w2], %[x], %[s2]\n\t"                    \
    "mla %[s3], %[w0], %[x], %[s3]\n\t"                    \
    "ldrsb %[x], [%[t], %[cs]]\n\t"                        \
    "mla %[s3], %[w1], %[x], %[s3]\n\t"                    \
    "add %[t], %[t], %[cs], lsl #1\n\t"                    \
    "ldrsb %[x], [%[t]]\n\t"                               \
    "mla %[s3], %[w2], %[x], %[s3]\n\t"
#define FG_DW_QUAD_ASM(ROW, row, w)                                                                                \
    do {                                                                                                           \
        const int32_t w0 = (w)[0], w1 = (w)[1], w2 = (w)[2];                                                       \
        int32_t x, t;                                                                                              \
        __asm__(ROW                                                                                                \
                : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "=&r"(x), [t] "=&r"(t)           \
                : [p] "r"(row), [cs] "r"(col_step), [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2)                       \
                : "memory");                                                                                       \
    } while (0)
#define FG_DW_QUAD(spread, row, w)                                                                                 \
    do {                                                                                                           \
        if ((spread) == 2) {                                                                                       \
            FG_DW_QUAD_ASM(FG_DW_QUAD_APART_ROW, row, w);                                                          \
        } else {                                                                                                   \
            FG_DW_QUAD_ASM(FG_DW_QUAD_ADJACENT_ROW, row, w);                                                       \
        }                                                                                                          \
    } while (0)
#else
#define FG_DW_QUAD(spread, row, w)                                                                                 \
    do {                                                                                                           \
        const int8_t *const r_ = (row);                                                                            \
        const int32_t w0 = (w)[0], w1 = (w)[1], w2 = (w)[2], m_ = (spread) * col_step;                            \
        s0 += w0 * r_[0] + w1 * r_[col_step] + w2 * r_[2 * col_step];                                              \
        s1 += w0 * r_[m_] + w1 * r_[m_ + col_step] + w2 * r_[m_ + 2 * col_step];                                   \
        s2 += w0 * r_[2 * m_] + w1 * r_[2 * m_ + col_step] + w2 * r_[2 * m_ + 2 * col_step];                       \
        s3 += w0 * r_[3 * m_] + w1 * r_[3 * m_ + col_step] + w2 * r_[3 * m_ + 2 * col_step];                       \
    } while (0)
#endif

/* acc[i * FG_REQUANT_CHUNK + k] = bias + the taps of channel k < count of window i < 4, the windows `spread` columns
 * apart (1 or 2) inside the image (r0: the first one's top left). */
static inline __attribute__((always_inline)) void fg_dw3x3_interior4(const int8_t *r0, int32_t row_step,
                                                                     int32_t col_step, const int32_t spread,
                                                                     const int8_t *w, const int32_t *bias,
                                                                     int32_t count, uint32_t *acc) {
    for (int32_t k = 0; k < count; ++k, w += 9, ++r0) {
        int32_t s0 = bias[k], s1 = s0, s2 = s0, s3 = s0;
        FG_DW_QUAD(spread, r0, w);
        FG_DW_QUAD(spread, r0 + row_step, w + 3);
        FG_DW_QUAD(spread, r0 + 2 * row_step, w + 6);
        acc[k] = (uint32_t)s0;
        acc[FG_REQUANT_CHUNK + k] = (uint32_t)s1;
        acc[2 * FG_REQUANT_CHUNK + k] = (uint32_t)s2;
        acc[3 * FG_REQUANT_CHUNK + k] = (uint32_t)s3;
    }
}

FG_HOT_LOOP static void fg_dw3x3_interior4_adjacent(const int8_t *r0, int32_t row_step, int32_t col_step,
                                                    const int8_t *w, const int32_t *bias, int32_t count,
                                                    uint32_t *acc) {
    fg_dw3x3_interior4(r0, row_step, col_step, 1, w, bias, count, acc);
}

FG_HOT_LOOP static void fg_dw3x3_interior4_apart(const int8_t *r0, int32_t row_step, int32_t col_step,
                                                 const int8_t *w, const int32_t *bias, int32_t count, uint32_t *acc) {
    fg_dw3x3_interior4(r0, row_step, col_step, 2, w, bias, count, acc);
}

/* The same for four windows whose filter rows fy lie inside the image where rows[fy] (their first window's tap 0 of
 * that row) is not NULL: a row in the padding reads the zero point, so its taps add -input_offset * (their weights'
 * sum) to the folded bias, which expects them. */
FG_HOT_LOOP static void fg_dw3x3_rows4(const int8_t *const rows[3], int32_t col_step, int32_t spread,
                                       int32_t input_offset, const int8_t *w, const int32_t *bias, int32_t count,
                                       uint32_t *acc) {
    for (int32_t k = 0; k < count; ++k, w += 9) {
        uint32_t start = (uint32_t)bias[k];
        for (int32_t fy = 0; fy < 3; ++fy) {
            if (rows[fy] == NULL) {
                start -= (uint32_t)input_offset * (uint32_t)(w[3 * fy] + w[3 * fy + 1] + w[3 * fy + 2]);
            }
        }
        int32_t s0 = (int32_t)start, s1 = s0, s2 = s0, s3 = s0;
        for (int32_t fy = 0; fy < 3; ++fy) {
            if (rows[fy] != NULL) {
                FG_DW_QUAD(spread, rows[fy] + k, w + 3 * fy);
            }
        }
        acc[k] = (uint32_t)s0;
        acc[FG_REQUANT_CHUNK + k] = (uint32_t)s1;
        acc[2 * FG_REQUANT_CHUNK + k] = (uint32_t)s2;
        acc[3 * FG_REQUANT_CHUNK + k] = (uint32_t)s3;
    }
}

/* Four output pixels side by side, one or two columns apart, whose windows' columns are inside the image, the first
 * one's window at input row y0, column x0; the last three pixels' outputs stored after the last input is read
 * (FG_PAIR_MAX_OUT channels at most). Filter rows in the padding are left out (fg_dw3x3_rows4). */
static void fg_dw3x3_quad(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                          int8_t *output) {
    const int32_t channels = p->in_c, col_step = p->dilation_w * channels;
    const int32_t row_step = p->dilation_h * p->in_w * channels, spread = p->stride_w / p->dilation_w;
    const int8_t *rows[3];
    int inside = 1;
    for (int32_t fy = 0; fy < 3; ++fy) {
        const int32_t y = y0 + fy * p->dilation_h;
        rows[fy] = y >= 0 && y < p->in_h ? image + (y * p->in_w + x0) * channels : NULL;
        inside &= rows[fy] != NULL;
    }
    uint32_t acc[4 * FG_REQUANT_CHUNK];
    int8_t later[3 * FG_PAIR_MAX_OUT];
    for (int32_t c = 0; c < channels; c += FG_REQUANT_CHUNK) {
        const int32_t count = channels - c < FG_REQUANT_CHUNK ? channels - c : FG_REQUANT_CHUNK;
        if (inside && spread == 1) {
            fg_dw3x3_interior4_adjacent(rows[0] + c, row_step, col_step, p->channel_taps + 9 * c, p->folded_bias + c,
                                        count, acc);
        } else if (inside) {
            fg_dw3x3_interior4_apart(rows[0] + c, row_step, col_step, p->channel_taps + 9 * c, p->folded_bias + c,
                                     count, acc);
        } else {
            const int8_t *const chunk_rows[3] = {rows[0] != NULL ? rows[0] + c : NULL,
                                                 rows[1] != NULL ? rows[1] + c : NULL,
                                                 rows[2] != NULL ? rows[2] + c : NULL};
            fg_dw3x3_rows4(chunk_rows, col_step, spread, p->requant.input_offset, p->channel_taps + 9 * c,
                           p->folded_bias + c, count, acc);
        }
        fg_requantize_quad_s8(&p->requant, acc, c, count, output + c, later + c, channels);
    }
    memcpy(output + channels, later, (size_t)(3 * channels));
}

/* One output pixel whose window is inside the image, at input offset window_start. */
static void fg_dw3x3_pixel(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t window_start,
                           int8_t *output) {
    const int32_t channels = p->in_c;
    uint32_t acc[FG_REQUANT_CHUNK];
    for (int32_t c = 0; c < channels; c += FG_REQUANT_CHUNK) {
        const int32_t count = channels - c < FG_REQUANT_CHUNK ? channels - c : FG_REQUANT_CHUNK;
        fg_dw3x3_interior(image + window_start + c, p->dilation_h * p->in_w * channels, p->dilation_w * channels,
                          p->channel_taps + 9 * c, p->folded_bias + c, count, acc);
        fg_requantize_run_s8(&p->requant, acc, c, count, output + c);
    }
}

/* Channels per window copy of a border pixel. */
#define FG_DW_GATHER 64

/* One output pixel at the border: its window copied FG_DW_GATHER channels at a time, the zero point where a tap
 * lies in the padding (there x + input_offset is 0, which the folded bias expects), then as inside the image. */
static void fg_dw3x3_border_pixel(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t x0,
                                  int8_t *output) {
    const int32_t channels = p->in_c;
    int32_t offsets[9];  /* of each tap in the image, -1 in the padding */
    int8_t window[9 * FG_DW_GATHER];
    uint32_t acc[FG_REQUANT_CHUNK];
    for (int32_t t = 0; t < 9; ++t) {
        const int32_t y = y0 + (t / 3) * p->dilation_h, x = x0 + (t % 3) * p->dilation_w;
        offsets[t] = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w ? (y * p->in_w + x) * channels : -1;
    }
    for (int32_t first = 0; first < channels; first += FG_DW_GATHER) {
        const int32_t width = channels - first < FG_DW_GATHER ? channels - first : FG_DW_GATHER;
        for (int32_t t = 0; t < 9; ++t) {
            if (offsets[t] >= 0) {
                memcpy(window + t * width, image + offsets[t] + first, (size_t)width);
            } else {
                memset(window + t * width, -p->requant.input_offset, (size_t)width);
            }
        }
        for (int32_t c = first; c < first + width; c += FG_REQUANT_CHUNK) {
            const int32_t count = first + width - c < FG_REQUANT_CHUNK ? first + width - c : FG_REQUANT_CHUNK;
            fg_dw3x3_interior(window + (c - first), 3 * width, width, p->channel_taps + 9 * c, p->folded_bias + c,
                              count, acc);
            fg_requantize_run_s8(&p->requant, acc, c, count, output + c);
        }
    }
}

/* Two output pixels side by side whose windows are inside the image, at input offset start. The second pixel's
 * outputs are stored after the last input is read (FG_PAIR_MAX_OUT channels at most), as fg_blocked_pair_s8. */
static void fg_dw3x3_pair(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t start, int8_t *output) {
    const int32_t channels = p->in_c, col_step = p->dilation_w * channels;
    uint32_t acc[2 * FG_REQUANT_CHUNK];
    int8_t later[FG_PAIR_MAX_OUT];
    int8_t *const out1 = channels > FG_REQUANT_CHUNK ? later : output + channels;
    for (int32_t c = 0; c < channels; c += FG_REQUANT_CHUNK) {
        const int32_t count = channels - c < FG_REQUANT_CHUNK ? channels - c : FG_REQUANT_CHUNK;
        fg_dw3x3_interior2(image + start + c, p->dilation_h * p->in_w * channels, col_step, p->stride_w * channels,
                           p->channel_taps + 9 * c, p->folded_bias + c, count, acc, acc + FG_REQUANT_CHUNK);
        fg_requantize_pair_s8(&p->requant, acc, c, count, output + c, out1 + c);
    }
    if (out1 == later) {
        memcpy(output + channels, later, (size_t)channels);
    }
}

/* Narrow images: the columns an output row's windows span (padding included) at most FG_DW_NARROW_COLUMNS, an output
 * row at most FG_DW_ROW_MAX bytes. Their borders are a large share of the pixels (kws_ref_model's 25x5: no column
 * quad fits inside the image); instead, each output row copies its three filter rows, one chunk of channels at a
 * time, with the zero point in the padding (which the folded bias expects), and runs every window of the row as an
 * interior one. */
#define FG_DW_NARROW_COLUMNS 16
#define FG_DW_ROW_MAX (3 * FG_PAIR_MAX_OUT)

static int32_t fg_dw3x3_span(const fg_depthwise_conv2d_params *p) {
    return (p->out_w - 1) * p->stride_w + 2 * p->dilation_w + 1;
}

/* Channels [c, c + count) of the filter rows from input row y0, columns from -pad_left, into rows
 * ([3][span][FG_REQUANT_CHUNK]). */
static void fg_dw3x3_gather_rows(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0, int32_t c,
                                 int32_t count, int32_t span, int8_t *rows) {
    const int zero_point = -p->requant.input_offset;
    for (int32_t fy = 0; fy < 3; ++fy) {
        const int32_t y = y0 + fy * p->dilation_h;
        int8_t *column = rows + fy * span * FG_REQUANT_CHUNK;
        for (int32_t xp = 0; xp < span; ++xp, column += FG_REQUANT_CHUNK) {
            const int32_t x = xp - p->pad_left;
            const int8_t *const source = image + (y * p->in_w + x) * p->in_c + c;
            const int inside = y >= 0 && y < p->in_h && x >= 0 && x < p->in_w;
            if (count == FG_REQUANT_CHUNK) {  /* a whole chunk: four word moves, no library call */
                if (inside) {
                    memcpy(column, source, FG_REQUANT_CHUNK);
                } else {
                    memset(column, zero_point, FG_REQUANT_CHUNK);
                }
            } else if (inside) {
                memcpy(column, source, (size_t)count);
            } else {
                memset(column, zero_point, (size_t)count);
            }
        }
    }
}

/* One output row of a narrow image, its windows at input row y0; stored after the last input is read. */
static void fg_dw3x3_narrow_row(const fg_depthwise_conv2d_params *p, const int8_t *image, int32_t y0,
                                int8_t *output) {
    const int32_t channels = p->in_c, out_w = p->out_w, span = fg_dw3x3_span(p);
    const int32_t row_step = span * FG_REQUANT_CHUNK, col_step = p->dilation_w * FG_REQUANT_CHUNK;
    const int32_t pixel_step = p->stride_w * FG_REQUANT_CHUNK;
    const int adjacent = p->stride_w == p->dilation_w, apart = p->stride_w == 2 * p->dilation_w;
    int8_t rows[3 * FG_DW_NARROW_COLUMNS * FG_REQUANT_CHUNK];
    int8_t outs[FG_DW_ROW_MAX];
    uint32_t acc[4 * FG_REQUANT_CHUNK];
    for (int32_t c = 0; c < channels; c += FG_REQUANT_CHUNK) {
        const int32_t count = channels - c < FG_REQUANT_CHUNK ? channels - c : FG_REQUANT_CHUNK;
        const int8_t *const w = p->channel_taps + 9 * c;
        const int32_t *const bias = p->folded_bias + c;
        int32_t ox = 0;
        fg_dw3x3_gather_rows(p, image, y0, c, count, span, rows);
        for (; (adjacent || apart) && ox + 3 < out_w; ox += 4) {
            if (adjacent) {
                fg_dw3x3_interior4_adjacent(rows + ox * pixel_step, row_step, col_step, w, bias, count, acc);
            } else {
                fg_dw3x3_interior4_apart(rows + ox * pixel_step, row_step, col_step, w, bias, count, acc);
            }
            fg_requantize_quad_s8(&p->requant, acc, c, count, outs + ox * channels + c,
                                  outs + (ox + 1) * channels + c, channels);
        }
        for (; ox + 1 < out_w; ox += 2) {
            fg_dw3x3_interior2(rows + ox * pixel_step, row_step, col_step, pixel_step, w, bias, count, acc,
                               acc + FG_REQUANT_CHUNK);
            fg_requantize_pair_s8(&p->requant, acc, c, count, outs + ox * channels + c,
                                  outs + (ox + 1) * channels + c);
        }
        if (ox < out_w) {
            fg_dw3x3_interior(rows + ox * pixel_step, row_step, col_step, w, bias, count, acc);
            fg_requantize_run_s8(&p->requant, acc, c, count, outs + ox * channels + c);
        }
    }
    memcpy(output, outs, (size_t)(out_w * channels));
}

void fg_depthwise_conv2d_3x3_s8(const fg_depthwise_conv2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->in_c;
    /* Output columns [first, end) have their windows' columns inside the image. */
    const int32_t first = (p->pad_left + p->stride_w - 1) / p->stride_w;
    const int32_t last_x = p->in_w - 1 - 2 * p->dilation_w + p->pad_left;
    const int32_t end = last_x < 0 ? 0 : last_x / p->stride_w + 1;
    /* the copied rows where they give a row more quads of windows than the image's interior columns do */
    const int narrow = fg_dw3x3_span(p) <= FG_DW_NARROW_COLUMNS && p->out_w * channels <= FG_DW_ROW_MAX
                       && p->out_w / 4 > (end > first ? end - first : 0) / 4;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * p->in_w * channels;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            const int32_t y0 = oy * p->stride_h - p->pad_top;
            if (narrow) {
                fg_dw3x3_narrow_row(p, image, y0, output);
                output += p->out_w * channels;
                continue;
            }
            const int rows_inside = y0 >= 0 && y0 + 2 * p->dilation_h < p->in_h;
            for (int32_t ox = 0; ox < p->out_w; ++ox) {
                const int32_t x0 = ox * p->stride_w - p->pad_left;
                if (ox >= first && ox + 3 < end && channels <= FG_PAIR_MAX_OUT
                    && (p->stride_w == p->dilation_w || p->stride_w == 2 * p->dilation_w)) {
                    fg_dw3x3_quad(p, image, y0, x0, output);
                    output += 4 * channels;
                    ox += 3;
                    continue;
                }
                if (rows_inside && ox >= first && ox + 1 < end && channels <= FG_PAIR_MAX_OUT) {
                    fg_dw3x3_pair(p, image, (y0 * p->in_w + x0) * channels, output);
                    output += 2 * channels;
                    ++ox;
                    continue;
                }
                if (rows_inside && ox >= first && ox < end) {
                    fg_dw3x3_pixel(p, image, (y0 * p->in_w + x0) * channels, output);
                } else {
                    fg_dw3x3_border_pixel(p, image, y0, x0, output);
                }
                output += channels;
            }
        }
    }
}
