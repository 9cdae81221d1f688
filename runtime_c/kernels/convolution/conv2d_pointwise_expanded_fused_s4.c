/* The convolutions with 4-bit weights on the paired loop (fg/support/expanded_passes.h), from the Armv7-M variant's
 * layout as it is (fg_s4_window_armv7m in fg/support/weights_s4.h: the all-fast word, the fg_fast_channel entries,
 * then [groups of eight channels][taps] words of four channel-pair bytes 16 w(2k) + (w(2k + 1) + 8)): no table of
 * its own (firmware_gen/ops/convolution/expanded_layout.py chooses them where every channel's stage is the fast one). */
#include "fg/support/expanded_passes.h"
#include "fg/support/fused_group.h"

/* The stack of a call (firmware_gen/ops/convolution/expanded_layout.py takes it on boards of 16 KB): the 1x1 kernel
 * copies a pass's inputs, or keeps its outputs, in FG_S4_EXPAND_KEPT bytes (whichever is smaller per pixel: 64 pixels
 * a pass up to 64 channels in or out), the window kernel a pass's input rows; the words of up to FG_S4_EXPAND_TAPS
 * taps expanded at once (a 3x3 window over 32 channels; its sums in registers), and the sums of a deeper window's
 * pass: 10.3 KB in all. */
#define FG_S4_EXPAND_KEPT 4096
#define FG_S4_EXPAND_TAPS 288
#define FG_S4_EXPAND_PIXELS 32

static const uint32_t *fg_s4_layout_words(const fg_conv2d_params *p) {
    const uint32_t *const head = p->packed;
    const int32_t groups = (p->out_c + FG_PAIRED_CHANNELS - 1) / FG_PAIRED_CHANNELS;
    return head + 1 + 3 * (p->requant.per_channel ? groups * FG_PAIRED_CHANNELS : 1);
}

/* Pair byte k of a word, 16 w(2k) + u with u = w(2k + 1) + 8 in [0, 15], into the paired word w(2k) + w(2k + 1) * 2^22:
 * with bit 3 of every byte flipped (one EOR a word), both nibbles are the two's-complement weights (u ^ 8 = u - 8 as
 * a signed nibble), two SBFX and an ADD a word. */
static void fg_expand_pair_bytes(const fg_conv2d_params *p, int32_t oc, int32_t t, int32_t taps, int32_t *words) {
    const uint32_t *w = fg_s4_layout_words(p) + (oc / FG_PAIRED_CHANNELS) * p->filter_h * p->filter_w * p->in_c + t;
    for (int32_t i = 0; i < taps; ++i, words += FG_PAIRED_WORDS) {
        const uint32_t v = *w++ ^ 0x08080808u;
#pragma GCC unroll 4
        for (int32_t k = 0; k < FG_PAIRED_WORDS; ++k) {
            const int32_t high = (int32_t)(v << (24 - 8 * k)) >> 28, low = (int32_t)(v << (28 - 8 * k)) >> 28;
            words[k] = (int32_t)((uint32_t)high + ((uint32_t)low << 22));
        }
    }
}

static void fg_s4_fast_constants(const fg_conv2d_params *p, int32_t oc, int32_t count, fg_fused_channel c[]) {
    const fg_fast_channel *const fast = (const fg_fast_channel *)((const uint32_t *)p->packed + 1);
    for (int32_t j = 0; j < count; ++j) {
        c[j].bias = (int32_t)((uint32_t)p->folded_bias[oc + j] - (j % 2 == 0 ? (uint32_t)FG_LOW_START : 0u));
        c[j].fast = fast[p->requant.per_channel ? oc + j : 0];
    }
}

/* The layer on the stack buffers of one call. */
#define FG_S4_EXPANDED_LAYER(layer)                                                                   \
    int8_t kept[FG_S4_EXPAND_KEPT];                                                                   \
    int32_t words[FG_S4_EXPAND_TAPS * FG_PAIRED_WORDS];                                               \
    int64_t sums[FG_S4_EXPAND_PIXELS][FG_PAIRED_WORDS];                                               \
    const fg_expanded_layer layer = {fg_expand_pair_bytes, fg_s4_fast_constants, kept, FG_S4_EXPAND_KEPT, 1, \
                                     words, FG_S4_EXPAND_TAPS, sums, FG_S4_EXPAND_PIXELS}

void fg_conv2d_pointwise_expanded_fused_s4(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                           int8_t *output) {
    FG_S4_EXPANDED_LAYER(layer);
    (void)filter;
    fg_expanded_passes(p, input, output, &layer);
}

void fg_conv2d_expanded_fused_s4(const fg_conv2d_params *p, const int8_t *input, const int8_t *filter,
                                 int8_t *output) {
    FG_S4_EXPANDED_LAYER(layer);
    (void)filter;
    fg_expanded_window_passes(p, input, output, &layer);
}
