#include "fg/variants_mve.h"

#if defined(__ARM_FEATURE_MVE)

#include "fg/isa/mve.h"

/* Each output pixel's clipped window summed eight channels at a time (int16 lanes: windows of at most 255 elements),
 * then divided per channel as
 * fg_avg_pool2d_s8 does (rounding half away from zero). A block of channels is stored after its window is read: output
 * pixel p only lands below the first input pixel its window reads (ops/overlap.py). */
FG_HOT_LOOP void fg_avg_pool2d_s8_mve(const fg_pool2d_params *p, const int8_t *input, int8_t *output) {
    const int32_t channels = p->channels, row_bytes = p->in_w * channels;
    const int32_t low = p->activation_min, high = p->activation_max;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + b * p->in_h * row_bytes;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            int32_t y_start, y_end;
            fg_pool_window_1d(oy, p->stride_h, p->pad_top, p->filter_h, p->in_h, &y_start, &y_end);
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += channels) {
                int32_t x_start, x_end;
                fg_pool_window_1d(ox, p->stride_w, p->pad_left, p->filter_w, p->in_w, &x_start, &x_end);
                const int32_t cols = x_end - x_start, count = (y_end - y_start) * cols;
                const int8_t *first = image + y_start * row_bytes + x_start * channels;
                for (int32_t c = 0; c < channels; c += 8) {
                    const mve_pred16_t lanes = vctp16q((uint32_t)(channels - c));
                    int16x8_t sum = vdupq_n_s16(0);  /* exact: count <= 255 (a precondition of the variant) */
                    for (int32_t y = y_start; y < y_end; ++y) {
                        const int8_t *x = first + (y - y_start) * row_bytes + c;
                        if (channels - c >= 8) {  /* no predicate to keep in VPR through the loop */
                            for (int32_t k = 0; k < cols; ++k, x += channels) {
                                sum = vaddq_s16(sum, vldrbq_s16(x));
                            }
                            continue;
                        }
                        for (int32_t k = 0; k < cols; ++k, x += channels) {
                            sum = vaddq_s16(sum, vldrbq_z_s16(x, lanes));
                        }
                    }
                    int16_t sums[8];
                    vstrhq_s16(sums, sum);
                    const int32_t n = channels - c < 8 ? channels - c : 8;
                    for (int32_t k = 0; k < n; ++k) {
                        const int32_t s = sums[k];
                        const int32_t average = count <= 0 ? 0 : s > 0 ? (s + count / 2) / count
                                                                        : (s - count / 2) / count;
                        output[c + k] = (int8_t)fg_clamp_i32(average, low, high);
                    }
                }
            }
        }
    }
}

#endif /* __ARM_FEATURE_MVE */
