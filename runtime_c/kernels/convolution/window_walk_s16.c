#include "fg/support/dot_s16.h"

void fg_window_walk_s16(const fg_window_geometry_s16 *g, const void *params, const int16_t *input,
                        const int8_t *filter, int16_t *output, fg_window_pixel_s16 pixel) {
    fg_window_s16 window;
    for (int32_t b = 0; b < g->batches; ++b) {
        window.image = input + b * g->in_h * g->in_w * g->in_c;
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            window.y_origin = oy * g->stride_h - g->pad_top;
            fg_window_inside(window.y_origin, g->filter_h, g->dilation_h, g->in_h, &window.span[0], &window.span[1]);
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                window.x_origin = ox * g->stride_w - g->pad_left;
                fg_window_inside(window.x_origin, g->filter_w, g->dilation_w, g->in_w, &window.span[2],
                                 &window.span[3]);
                output = pixel(params, filter, &window, output);
            }
        }
    }
}
