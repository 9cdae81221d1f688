#include "fg/support/dot_s8.h"
#include "fg/support/paired_run.h"

/* Adds the sum of channels (c, c + 1) to their accumulators, or sets them to their bias plus it. */
static inline void fg_split_channels(int64_t sum, const int32_t *bias, uint32_t *acc) {
    uint32_t s0, s1;
    fg_split_sum(sum, &s0, &s1);
    if (bias != NULL) {
        acc[0] = (uint32_t)bias[0] + s0;
        acc[1] = (uint32_t)bias[1] + s1;
    } else {
        acc[0] += s0;
        acc[1] += s1;
    }
}

FG_HOT_LOOP void fg_dot1x8_paired_s8(const int8_t *const x[], int32_t rows, int32_t run, const int32_t *w,
                                     const int32_t *bias, uint32_t acc[FG_PAIRED_CHANNELS]) {
    int64_t s[4] = {0, 0, 0, 0};
    for (int32_t r = 0; r < rows; ++r) {
        fg_paired_run(x[r], x[r] + run, &w, s);
    }
    fg_split_channels(s[0], bias, acc + 0);
    fg_split_channels(s[1], bias != NULL ? bias + 2 : NULL, acc + 2);
    fg_split_channels(s[2], bias != NULL ? bias + 4 : NULL, acc + 4);
    fg_split_channels(s[3], bias != NULL ? bias + 6 : NULL, acc + 6);
}
