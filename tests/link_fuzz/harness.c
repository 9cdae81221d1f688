/* The profiling firmware's frame parser (fg_link.c, and main.c's session loop that drives it) built for the host
 * and fed random and mutated byte streams: run by tests/test_link_fuzz.py under ASan and UBSan.
 *
 * The UART reads from the case's bytes (its end ends the case: the firmware would wait for more), writes go to a
 * bounded buffer, fg_exit ends the case. Model inputs and outputs are heap blocks of their exact sizes, so a write
 * past one is an ASan report. Usage: harness CASES SEED; prints the outcome counts. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/hooks.h"
#include "fg_link.h"
#include "fg_port.h"
#include "fg_protocol.h"
#include "model.h"

int fg_firmware_main(void);

static const uint32_t input_bytes[FG_MODEL_NUM_INPUTS] = {5, 300};
static const uint32_t output_bytes[FG_MODEL_NUM_OUTPUTS] = {3, 17};
static uint8_t *inputs[FG_MODEL_NUM_INPUTS];
static uint8_t *outputs[FG_MODEL_NUM_OUTPUTS];

static const uint8_t *stream;
static size_t stream_bytes;
static size_t stream_at;
static uint8_t sent[1 << 16];
static size_t sent_bytes;
static jmp_buf case_end;

enum { END_OF_STREAM = 1, EXITED = 2 };
static int exit_code;

/* One case through the firmware's main(): END_OF_STREAM, EXITED (exit_code says how) or 0 (main returned). */
static int run_case(const uint8_t *bytes, size_t count) {
    stream = bytes;
    stream_bytes = count;
    stream_at = 0;
    sent_bytes = 0;
    int how = setjmp(case_end);
    if (how == 0) {
        (void)fg_firmware_main();
    }
    return how;
}

void fg_board_init(void) {}
void fg_uart_init(void) {}
void fg_uart_flush(void) {}
int fg_cycles_init(void) { return FG_COUNTER_SYSTICK; }
void fg_cycles_restart(void) {}
uint64_t fg_cycles_now(void) { return 0; }
uint32_t fg_stack_used(void) { return 0; }
uint32_t fg_stack_reserved(void) { return 0; }

uint8_t fg_uart_read_byte(void) {
    if (stream_at >= stream_bytes) {
        longjmp(case_end, END_OF_STREAM);
    }
    return stream[stream_at++];
}

void fg_uart_write(const void *data, size_t bytes) {
    if (bytes > sizeof sent - sent_bytes) {
        fprintf(stderr, "the firmware sent more than %zu B in one case\n", sizeof sent);
        abort();
    }
    memcpy(sent + sent_bytes, data, bytes);
    sent_bytes += bytes;
}

void fg_exit(int code) {
    exit_code = code;
    longjmp(case_end, EXITED);
}

void *fg_model_input(int index) { return inputs[index]; }
void *fg_model_output(int index) { return outputs[index]; }
uint32_t fg_model_input_bytes(int index) { return input_bytes[index]; }
uint32_t fg_model_output_bytes(int index) { return output_bytes[index]; }

int fg_model_invoke(void) {
    for (int step = 0; step < FG_MODEL_NUM_STEPS; ++step) {
        fg_hook_step_begin(step);
        fg_hook_step_end(step);
    }
    for (uint32_t i = 0; i < output_bytes[0]; ++i) {
        outputs[0][i] = (uint8_t)(inputs[0][i % input_bytes[0]] + 1u);
    }
    for (uint32_t i = 0; i < output_bytes[1]; ++i) {
        outputs[1][i] = inputs[1][i];
    }
    return 0;
}

/* xorshift64*: the same cases for the same seed on every host. */
static uint64_t rng_state;
static uint32_t next_random(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static uint32_t crc32_of(const uint8_t *data, size_t bytes) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < bytes; ++i) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

/* Appends one well-formed frame (magic, type, length, payload, CRC) to buffer at *at. */
static void put_frame(uint8_t *buffer, size_t capacity, size_t *at, uint8_t type, const uint8_t *payload,
                      uint32_t length) {
    if (*at + 11u + length > capacity) {
        return;
    }
    uint8_t *p = buffer + *at;
    p[0] = FG_FRAME_MAGIC0;
    p[1] = FG_FRAME_MAGIC1;
    p[2] = type;
    fg_put_u32(p + 3, length);
    if (length > 0) {
        memcpy(p + 7, payload, length);
    }
    fg_put_u32(p + 7 + length, crc32_of(p + 2, 5u + length));
    *at += 11u + length;
}

/* A plausible session: HELLO_REQUESTs, then the inputs (sometimes repeated, sometimes with a wrong size or index),
 * sometimes a STEP_SESSION or another host frame type. */
static size_t valid_session(uint8_t *buffer, size_t capacity) {
    size_t at = 0;
    uint8_t payload[512];
    for (uint32_t n = next_random() % 3; n > 0; --n) {
        put_frame(buffer, capacity, &at, FG_FRAME_HELLO_REQUEST, NULL, 0);
    }
    for (uint32_t frames = 1 + next_random() % 4; frames > 0; --frames) {
        uint32_t choice = next_random() % 16;
        uint8_t index = (uint8_t)(choice == 0 ? next_random() % 256 : next_random() % FG_MODEL_NUM_INPUTS);
        uint32_t length = 1u + (index < FG_MODEL_NUM_INPUTS ? input_bytes[index] : 7u);
        if (choice == 1) {
            length = next_random() % sizeof payload;
        }
        uint8_t type = FG_FRAME_INPUT;
        if (choice == 2) {
            type = (uint8_t)(FG_FRAME_HELLO_REQUEST + next_random() % 10);
            length = next_random() % 9;
        }
        payload[0] = index;
        for (uint32_t i = 1; i < length && i < sizeof payload; ++i) {
            payload[i] = (uint8_t)next_random();
        }
        put_frame(buffer, capacity, &at, type, payload, length < sizeof payload ? length : sizeof payload);
    }
    return at;
}

static void mutate(uint8_t *buffer, size_t *bytes, size_t capacity) {
    for (uint32_t n = 1 + next_random() % 4; n > 0 && *bytes > 0; --n) {
        size_t at = next_random() % *bytes;
        switch (next_random() % 6) {
        case 0: buffer[at] ^= (uint8_t)(1u << (next_random() % 8)); break;
        case 1: buffer[at] = (uint8_t)next_random(); break;
        case 2: *bytes = at; break; /* truncation */
        case 3: /* a dropped byte */
            memmove(buffer + at, buffer + at + 1, *bytes - at - 1);
            --*bytes;
            break;
        case 4: /* a duplicated byte */
            if (*bytes < capacity) {
                memmove(buffer + at + 1, buffer + at, *bytes - at);
                ++*bytes;
            }
            break;
        default: { /* a length field made huge or off by a little */
            uint32_t value = next_random() % 2 ? next_random() : input_bytes[1] + 1u + next_random() % 3;
            if (at + 4 <= *bytes) {
                fg_put_u32(buffer + at, value);
            }
        }
        }
    }
}

static size_t random_bytes(uint8_t *buffer, size_t capacity) {
    size_t bytes = next_random() % capacity;
    for (size_t i = 0; i < bytes; ++i) {
        /* Mostly the magic's letters, so that frame starts are common. */
        uint32_t r = next_random();
        buffer[i] = (uint8_t)(r % 4 == 0 ? FG_FRAME_MAGIC0 : r % 4 == 1 ? FG_FRAME_MAGIC1 : r >> 8);
    }
    return bytes;
}

/* Every frame the firmware sent in one case is whole and its CRC right. */
static int sent_frames_well_formed(void) {
    size_t at = 0;
    while (at < sent_bytes) {
        if (sent_bytes - at < 11 || sent[at] != FG_FRAME_MAGIC0 || sent[at + 1] != FG_FRAME_MAGIC1) {
            return 0;
        }
        uint32_t length = (uint32_t)sent[at + 3] | (uint32_t)sent[at + 4] << 8 | (uint32_t)sent[at + 5] << 16 |
                          (uint32_t)sent[at + 6] << 24;
        if (length > sent_bytes - at - 11) {
            return 0;
        }
        const uint8_t *c = sent + at + 7 + length;
        uint32_t crc = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
        if (crc != crc32_of(sent + at + 2, 5u + length)) {
            return 0;
        }
        at += 11u + length;
    }
    return 1;
}

int main(int argc, char **argv) {
    long cases = argc > 1 ? atol(argv[1]) : 100000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) * 2654435761ull + 1 : 1;
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        inputs[i] = malloc(input_bytes[i]);
    }
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        outputs[i] = malloc(output_bytes[i]);
    }
    static uint8_t buffer[2048];
    long ran = 0, ended = 0, protocol_errors = 0, other_exits = 0, malformed = 0;
    for (long n = 0; n < cases; ++n) {
        size_t bytes = 0;
        uint32_t kind = next_random() % 4;
        if (kind == 0) {
            bytes = random_bytes(buffer, sizeof buffer);
        } else {
            bytes = valid_session(buffer, sizeof buffer);
            if (kind != 1) {
                mutate(buffer, &bytes, sizeof buffer);
            }
        }
        uint8_t *copy = malloc(bytes ? bytes : 1); /* exactly the case's bytes: a read past them is a report */
        memcpy(copy, buffer, bytes);
        int how = run_case(copy, bytes);
        if (how == 0) {
            ++ran;
        } else if (how == END_OF_STREAM) {
            ++ended;
        } else if (exit_code == FG_EXIT_PROTOCOL_ERROR) {
            ++protocol_errors;
        } else {
            ++other_exits;
        }
        if (!sent_frames_well_formed()) {
            ++malformed;
        }
        free(copy);
    }
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        free(inputs[i]);
    }
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        free(outputs[i]);
    }
    printf("cases %ld ran %ld end_of_stream %ld protocol_errors %ld other_exits %ld malformed_frames %ld\n", cases,
           ran, ended, protocol_errors, other_exits, malformed);
    return malformed == 0 && other_exits == 0 ? 0 : 1;
}
