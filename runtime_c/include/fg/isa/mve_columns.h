/* The column band of a convolution's output row (conv2d_columns_mve.c, and its 4-bit twin in conv2d_folded_mve.c):
 * each pixel column's filter_h tap rows one after the other, so that a window is one run of taps. */
#ifndef FG_MVE_COLUMNS_H
#define FG_MVE_COLUMNS_H

#if defined(__ARM_FEATURE_MVE)

#include "fg/variants_mve.h"
#include "fg/isa/mve.h"

/* `count` pixels of in_c bytes (count > 0), `column` bytes apart in dst: from src, in_c bytes apart (SOURCE: a
 * tail-predicated loop of 16 bytes loading them), or the zero points already in q0 (SOURCE empty). */
#define FG_COLUMNS_PUT(SOURCE)                  \
    "1:\n"                                      \
    "mov r0, %[src]\n"                          \
    "mov r2, %[dst]\n"                          \
    "dlstp.8 lr, %[in_c]\n"                     \
    "2:\n"                                      \
    SOURCE                                      \
    "vstrb.8 q0, [r2], #16\n"                   \
    "letp lr, 2b\n"                             \
    "add %[src], %[src], %[in_c]\n"             \
    "add %[dst], %[dst], %[column]\n"           \
    "subs %[count], %[count], #1\n"             \
    "bne 1b\n"
#define FG_COLUMNS_PUT_OPERANDS                                                                                  \
    : [dst] "+r"(dst), [src] "+r"(src), [count] "+r"(count)                                                     \
    : [in_c] "r"(in_c), [column] "r"(column)

static inline void fg_columns_copy(int8_t *dst, int32_t column, int32_t count, const int8_t *src, int32_t in_c) {
    if (count > 0) {
        __asm__ volatile(FG_COLUMNS_PUT("vldrb.8 q0, [r0], #16\n") FG_COLUMNS_PUT_OPERANDS
                         : "r0", "r2", "lr", "q0", "memory", "cc");
    }
}

/* fg_columns_copy of pixels of whole vectors (MOVES: loading and storing one pixel), a low-overhead loop. */
#define FG_COLUMNS_COPY_WHOLE(MOVES)                                                                            \
    __asm__ volatile("dls lr, %[count]\n"                                                                      \
                     "1:\n" MOVES                                                                              \
                     "add %[dst], %[dst], %[column]\n"                                                         \
                     "le lr, 1b\n"                                                                             \
                     : [dst] "+r"(dst), [src] "+r"(src)                                                        \
                     : [count] "r"(count), [column] "r"(column)                                                \
                     : "lr", "q0", "q1", "memory")
#define FG_COLUMNS_LOAD(q) "vldrb.8 " q ", [%[src]], #16\n"

/* The pixels a scatter store puts in their columns (fg_columns_scatter): 16 / in_c for 8 input channels or fewer,
 * when their offsets fit a byte; else 0. */
static inline int32_t fg_columns_scatter_pixels(int32_t in_c, int32_t column) {
    const int32_t pixels = 16 / in_c;
    return in_c <= 8 && (pixels - 1) * column + in_c <= 256 ? pixels : 0;
}

/* Lane k x in_c + b of a scatter store of `pixels` pixels: pixel k's column, its byte b. */
static inline void fg_columns_scatter_offsets(uint8_t lanes[16], int32_t in_c, int32_t column, int32_t pixels) {
    for (int32_t k = 0; k < pixels; ++k) {
        for (int32_t b = 0; b < in_c; ++b) {
            lanes[k * in_c + b] = (uint8_t)(k * column + b);
        }
    }
}

/* fg_columns_copy of few channels: `pixels` pixels a vector, loaded whole and scattered to their columns (the last
 * vector predicated to the pixels left), instead of a loop per pixel. */
static inline void fg_columns_scatter(int8_t *dst, int32_t column, int32_t count, const int8_t *src, int32_t in_c,
                                      const uint8_t *offsets, int32_t pixels) {
    const int32_t chunk = pixels * in_c;
    const uint8x16_t lanes_at = vld1q_u8(offsets);
    for (int32_t left = count * in_c; left > 0; left -= chunk, src += chunk, dst += pixels * column) {
        const mve_pred16_t lanes = vctp8q((uint32_t)(left < chunk ? left : chunk));
        vstrbq_scatter_offset_p_s8(dst, lanes_at, vldrbq_z_s8(src, lanes), lanes);
    }
}

/* fg_columns_copy where in_c is 16, 32 or 64, or scattered where `pixels` (else that). */
static inline void fg_columns_copy_whole(int8_t *dst, int32_t column, int32_t count, const int8_t *src,
                                         int32_t in_c, const uint8_t *offsets, int32_t pixels) {
    if (count <= 0) {
        return;
    }
    if (pixels) {
        fg_columns_scatter(dst, column, count, src, in_c, offsets, pixels);
    } else if (in_c == 16) {
        FG_COLUMNS_COPY_WHOLE(FG_COLUMNS_LOAD("q0") "vstrb.8 q0, [%[dst]]\n");
    } else if (in_c == 32) {
        FG_COLUMNS_COPY_WHOLE(FG_COLUMNS_LOAD("q0") FG_COLUMNS_LOAD("q1") "vstrb.8 q0, [%[dst]]\n"
                              "vstrb.8 q1, [%[dst], #16]\n");
    } else if (in_c == 64) {
        FG_COLUMNS_COPY_WHOLE(FG_COLUMNS_LOAD("q0") FG_COLUMNS_LOAD("q1") "vstrb.8 q0, [%[dst]]\n"
                              "vstrb.8 q1, [%[dst], #16]\n" FG_COLUMNS_LOAD("q0") FG_COLUMNS_LOAD("q1")
                              "vstrb.8 q0, [%[dst], #32]\n" "vstrb.8 q1, [%[dst], #48]\n");
    } else {
        fg_columns_copy(dst, column, count, src, in_c);
    }
}

static inline void fg_columns_fill(int8_t *dst, int32_t column, int32_t count, int8x16_t zero_points,
                                   int32_t in_c) {
    const int8_t *src = 0;
    if (count > 0) {
        __asm__ volatile("vmov q0, %q[zp]\n" FG_COLUMNS_PUT("") FG_COLUMNS_PUT_OPERANDS, [zp] "w"(zero_points)
                         : "r0", "r2", "lr", "q0", "memory", "cc");
    }
}

/* The column band of the output row whose windows start at image row y0: for each of its `width` pixel columns from
 * image column -pad_left, the column's filter_h tap rows one after the other (in_c bytes each, the input zero point
 * outside the image), columns one after the other. A window is then filter_w whole columns: one run of taps. The
 * columns left and right of the image hold the zero point from the start (the caller fills the band once). Rows of
 * few channels are scattered `pixels` pixels a vector (fg_columns_scatter_pixels, fg_columns_scatter_offsets). */
static void fg_columns_band(const fg_conv2d_params *p, const int8_t *image, int32_t y0, int32_t width, int8_t *band,
                            const uint8_t *offsets, int32_t pixels) {
    const int32_t in_c = p->in_c, column = p->filter_h * in_c;
    const int8x16_t zero_points = vdupq_n_s8((int8_t)-p->requant.input_offset);
    const int32_t left = p->pad_left < width ? p->pad_left : width;
    const int32_t room = width - left, inside = room < p->in_w ? room : p->in_w;
    band += left * column;
    for (int32_t fy = 0; fy < p->filter_h; ++fy, band += in_c) {
        const int32_t y = y0 + fy * p->dilation_h;
        if (y < 0 || y >= p->in_h) {
            fg_columns_fill(band, column, inside, zero_points, in_c);
        } else {
            fg_columns_copy_whole(band, column, inside, image + y * p->in_w * in_c, in_c, offsets, pixels);
        }
    }
}

#endif /* __ARM_FEATURE_MVE */

#endif /* FG_MVE_COLUMNS_H */
