/* Self-test firmware (`firmware-gen selftest`): the board port, the serial link and the frame encoders of the
 * profiling firmware, and no model. It answers the host's requests (fg_protocol.h, self-test session): echoes
 * frames (the UART both ways), waits a number of counter counts between two frames (the host times them: the
 * counter and the core clock), tests RAM ranges, runs CPU feature probes; END_REQUEST ends the run as a model run
 * ends (DONE, then fg_exit: semihosting under QEMU, drain the UART and reset on a real board). */
#include <stdint.h>

#include "fg_frames.h"
#include "fg_link.h"
#include "fg_port.h"
#include "fg_protocol.h"
#include "model.h"
#include "selftest_probes.h"

#define STUCK_READS 1000000u /* reads of an unchanged counter after which it is deemed stopped */

static uint8_t echo[FG_SELFTEST_ECHO_MAX];
static int counter_kind;

uint32_t fg_model_input_bytes(int index) {
    (void)index;
    return 0;
}

uint32_t fg_model_output_bytes(int index) {
    (void)index;
    return 0;
}

void fg_frame_open(void) {}
void fg_frame_close(void) {}

void fg_fault_report(const fg_exception_frame *frame, uint32_t exc_return) {
    fg_frame_send_fault(-1, frame, exc_return);
    fg_exit(FG_EXIT_FAULT);
}

static void fail(uint8_t code, uint32_t detail) __attribute__((noreturn));
static void fail(uint8_t code, uint32_t detail) {
    fg_frame_send_error(code, detail);
    fg_exit(FG_EXIT_PROTOCOL_ERROR);
}

/* The payload of a request (type and length read) into `into`: exactly `exact` bytes, or (exact 0) 1 to `room`. */
static void receive(uint8_t type, uint32_t length, uint8_t *into, uint32_t exact, uint32_t room) {
    if (exact ? length != exact : (length < 1 || length > room)) {
        fail(FG_ERROR_BAD_LENGTH, length);
    }
    fg_link_receive_part(into, length);
    if (!fg_link_receive_end()) {
        fail(FG_ERROR_BAD_CRC, type);
    }
}

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void send_timing(uint8_t phase, uint8_t stuck, uint64_t counts) {
    uint8_t payload[12] = {phase, (uint8_t)counter_kind, stuck, 0};
    fg_put_u64(payload + 4, counts);
    fg_link_send(FG_FRAME_TIMING, payload, sizeof payload);
}

/* Both TIMING frames have the same size, so the host's clock sees the wait between their ends. */
static void timed_wait(uint32_t counts) {
    send_timing(0, 0, 0);
    uint64_t start = fg_cycles_now();
    uint64_t last = start;
    uint64_t now = start;
    uint32_t same = 0;
    uint8_t stuck = 0;
    while ((now = fg_cycles_now()) - start < counts) {
        if (now != last) {
            last = now;
            same = 0;
        } else if (++same > STUCK_READS) {
            stuck = 1;
            break;
        }
    }
    send_timing(1, stuck, now - start);
}

static void memtest(const uint8_t *request) {
    uint32_t start = get_u32(request);
    uint32_t bytes = get_u32(request + 4);
    fg_memtest_result result = fg_memtest(start, bytes);
    const uint32_t words[7] = {start, bytes, result.tested, result.status, result.address, result.read,
                               result.expected};
    uint8_t payload[sizeof words];
    for (unsigned i = 0; i < 7; ++i) {
        fg_put_u32(payload + 4 * i, words[i]);
    }
    fg_link_send(FG_FRAME_MEMTEST, payload, sizeof payload);
}

static void feature(uint8_t which) {
    uint8_t payload[8] = {which, 0, 0, 0};
    fg_put_u32(payload + 4, fg_feature_probe(which));
    fg_link_send(FG_FRAME_FEATURE, payload, sizeof payload);
}

int main(void) {
    fg_uart_init();
    counter_kind = fg_cycles_init();
    for (;;) {
        uint8_t type;
        uint32_t length;
        uint8_t words[8];
        fg_link_receive_begin(&type, &length);
        if ((type == FG_FRAME_HELLO_REQUEST || type == FG_FRAME_END_REQUEST) && length != 0) {
            fail(FG_ERROR_BAD_LENGTH, length);
        }
        if ((type == FG_FRAME_HELLO_REQUEST || type == FG_FRAME_END_REQUEST) && !fg_link_receive_end()) {
            fail(FG_ERROR_BAD_CRC, type);
        }
        switch (type) {
        case FG_FRAME_HELLO_REQUEST:
            fg_frame_send_hello(counter_kind);
            break;
        case FG_FRAME_ECHO_REQUEST:
            receive(type, length, echo, 0, sizeof echo);
            fg_link_send(FG_FRAME_ECHO, echo, length);
            break;
        case FG_FRAME_TIMING_REQUEST:
            receive(type, length, words, 4, 4);
            timed_wait(get_u32(words));
            break;
        case FG_FRAME_MEMTEST_REQUEST:
            receive(type, length, words, 8, 8);
            memtest(words);
            break;
        case FG_FRAME_FEATURE_REQUEST:
            receive(type, length, words, 1, 1);
            feature(words[0]);
            break;
        case FG_FRAME_END_REQUEST:
            fg_frame_send_done(0);
            return FG_EXIT_OK;
        default:
            fail(FG_ERROR_UNEXPECTED_FRAME, type);
        }
    }
}
