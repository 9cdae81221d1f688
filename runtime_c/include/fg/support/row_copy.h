/* Copies of contiguous rows of bytes. A short row (a channel run, a GATHER_ND slice of a few bytes) is copied by
 * words, the last 1 to 3 bytes one by one: the 4-byte memcpy compiles to one (unaligned-capable) load and store,
 * cheaper than a call to the C library's memcpy, which serves the longer rows. */
#ifndef FG_ROW_COPY_H
#define FG_ROW_COPY_H

#include <stdint.h>
#include <string.h>

/* The longest row copied inline; longer rows go to memcpy. */
#define FG_SHORT_ROW_BYTES 16

static inline void fg_copy_short_row(int8_t *output, const int8_t *input, int32_t bytes) {
    int32_t i = 0;
    for (; i + 4 <= bytes; i += 4) {
        uint32_t word;
        memcpy(&word, input + i, 4);
        memcpy(output + i, &word, 4);
    }
    for (; i < bytes; ++i) {
        output[i] = input[i];
    }
}

/* A row of a whole number of words, at least one. */
static inline void fg_copy_words(int8_t *output, const int8_t *input, int32_t bytes) {
    const int8_t *const end = input + bytes;
    do {
        uint32_t word;
        memcpy(&word, input, 4);
        memcpy(output, &word, 4);
        input += 4;
        output += 4;
    } while (input != end);
}

/* A row of whole 16-byte blocks between word-aligned addresses: a block per pass, loaded and stored as four words
 * (LDM/STM), where the C library's memcpy spends ~0.7 instructions per byte. */
static inline void fg_copy_blocks(int8_t *output, const int8_t *input, int32_t bytes) {
    int8_t *to = __builtin_assume_aligned(output, 4);
    const int8_t *from = __builtin_assume_aligned(input, 4);
    for (const int8_t *const end = from + bytes; from != end; from += 16, to += 16) {
        memcpy(to, from, 16);
    }
}

static inline void fg_copy_row(int8_t *output, const int8_t *input, int32_t bytes) {
    if (bytes <= FG_SHORT_ROW_BYTES) {
        fg_copy_short_row(output, input, bytes);
    } else if (bytes % 16 == 0 && ((uintptr_t)output | (uintptr_t)input) % 4 == 0) {
        fg_copy_blocks(output, input, bytes);
    } else {
        memcpy(output, input, (size_t)bytes);
    }
}

/* A row of one byte value: a short row inline, a longer one by memset. */
static inline void fg_fill_row(int8_t *output, int8_t value, int32_t bytes) {
    if (bytes <= FG_SHORT_ROW_BYTES) {
        for (int32_t i = 0; i < bytes; ++i) {
            output[i] = value;
        }
    } else {
        memset(output, value, (size_t)bytes);
    }
}

#endif /* FG_ROW_COPY_H */
