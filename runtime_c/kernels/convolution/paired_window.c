#include "fg/support/dot_s8.h"

/* The groups of 8 channels [first, first + groups) of one pixel over the whole window from the paired weights, into
 * acc: the bias of those groups plus the dot products, in calls that stay exact (fg_blocked_filter). */
static void fg_paired_window(const fg_blocked_filter *f, int32_t first, int32_t groups, const int8_t *const x[],
                             const int32_t *bias, uint32_t *acc) {
    const int32_t rows = f->rows, run = f->run, group_words = FG_PAIRED_WORDS * rows * run;
    for (int32_t g = 0; g < groups; ++g, acc += FG_PAIRED_CHANNELS, bias += FG_PAIRED_CHANNELS) {
        const int32_t *const w = f->paired + (first + g) * group_words;
        if (f->call_taps == run) {  /* whole rows, call_rows at a time */
            for (int32_t r = 0; r < rows; r += f->call_rows) {
                const int32_t count = rows - r < f->call_rows ? rows - r : f->call_rows;
                fg_dot1x8_paired_s8(x + r, count, run, w + FG_PAIRED_WORDS * r * run, r == 0 ? bias : NULL, acc);
            }
            continue;
        }
        for (int32_t r = 0; r < rows; ++r) {
            for (int32_t t = 0; t < run; t += f->call_taps) {
                const int8_t *const piece = x[r] + t;
                fg_dot1x8_paired_s8(&piece, 1, run - t < f->call_taps ? run - t : f->call_taps,
                                    w + FG_PAIRED_WORDS * (r * run + t), r == 0 && t == 0 ? bias : NULL, acc);
            }
        }
    }
}

/* The paired layout: one pixel at a time, groups of 8 channels (there are groups of 4 here; the bias is padded to
 * whole groups of 8). */
void fg_paired_window_s8(const fg_blocked_filter *f, int32_t first, int32_t groups, const int8_t *const x0[],
                         const int8_t *const x1[], int32_t step, const int32_t *bias, uint32_t *acc) {
    (void)step;
    fg_paired_window(f, first / 2, (groups + 1) / 2, x0, bias, acc);
    if (x1 != NULL) {
        fg_paired_window(f, first / 2, (groups + 1) / 2, x1, bias, acc + FG_REQUANT_CHUNK);
    }
}
