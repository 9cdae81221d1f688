#include "fg/variants_dsp.h"

#if defined(__ARM_FEATURE_DSP)

#include "fg/depthwise_conv2d.h"

/* fg_depthwise_conv2d_3x3_ring_dsp with 4-bit weights: params->packed holds per group of four channels its 16
 * constant words, then the filter as [channel][9 taps] in TFLite's nibble packing (ops/variants/dsp_ring_4bit.py);
 * the ring run unpacks a group's nibbles once per image. An output that overlaps the input other than a whole number
 * of pixels before it runs the planar kernel's pixel order on those nibbles. */
void fg_depthwise_conv2d_3x3_ring_s4_dsp(const fg_depthwise_conv2d_params *p, const int8_t *input,
                                         const int8_t *filter, int8_t *output) {
    if (fg_depthwise_channel_major(p, input, output)) {
        fg_dsp_dw_ring_s4_run(p, input, output);
        return;
    }
    fg_depthwise_conv2d_params planar = *p;
    planar.packed = (const uint32_t *)p->packed + 4 * p->in_c;
    fg_depthwise_conv2d_3x3_planar_s4(&planar, input, filter, output);
}

#endif /* __ARM_FEATURE_DSP */
