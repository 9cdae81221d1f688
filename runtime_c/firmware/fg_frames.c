#include "fg_frames.h"

#include "fg_link.h"
#include "fg_protocol.h"
#include "model.h"

static void frame_begin(uint8_t type, uint32_t length) {
    fg_frame_open();
    fg_link_send_begin(type, length);
}

static void frame_end(void) {
    fg_link_send_end();
    fg_frame_close();
}

static void send_u32(uint32_t value) {
    uint8_t word[4];
    fg_put_u32(word, value);
    fg_link_send_part(word, sizeof word);
}

void fg_frame_send_hello(int counter_kind) {
    uint8_t header[16] = {FG_PROTOCOL_VERSION, (uint8_t)counter_kind};
    fg_put_u16(header + 2, FG_MODEL_NUM_INPUTS);
    fg_put_u16(header + 4, FG_MODEL_NUM_OUTPUTS);
    fg_put_u32(header + 8, FG_MODEL_NUM_STEPS);
    fg_put_u32(header + 12, FG_MODEL_WORKSPACE_BYTES);
    frame_begin(FG_FRAME_HELLO, sizeof header + 4u * (FG_MODEL_NUM_INPUTS + FG_MODEL_NUM_OUTPUTS));
    fg_link_send_part(header, sizeof header);
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        send_u32(fg_model_input_bytes(i));
    }
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        send_u32(fg_model_output_bytes(i));
    }
    frame_end();
}

void fg_frame_send_output(int index, const void *data) {
    uint8_t number = (uint8_t)index;
    frame_begin(FG_FRAME_OUTPUT, 1u + fg_model_output_bytes(index));
    fg_link_send_part(&number, 1);
    fg_link_send_part(data, fg_model_output_bytes(index));
    frame_end();
}

void fg_frame_send_profile(int counter_kind, uint64_t total, const uint64_t *step_counts) {
    uint8_t header[16] = {(uint8_t)counter_kind};
    fg_put_u32(header + 4, FG_MODEL_NUM_STEPS);
    fg_put_u64(header + 8, total);
    frame_begin(FG_FRAME_PROFILE, sizeof header + 8u * FG_MODEL_NUM_STEPS);
    fg_link_send_part(header, sizeof header);
    for (int i = 0; i < FG_MODEL_NUM_STEPS; ++i) {
        uint8_t count[8];
        fg_put_u64(count, step_counts[i]);
        fg_link_send_part(count, sizeof count);
    }
    frame_end();
}

void fg_frame_send_done(int32_t status) {
    frame_begin(FG_FRAME_DONE, 4);
    send_u32((uint32_t)status);
    frame_end();
}

void fg_frame_send_stack(uint32_t used, uint32_t reserved) {
    frame_begin(FG_FRAME_STACK, 8);
    send_u32(used);
    send_u32(reserved);
    frame_end();
}

void fg_frame_send_sample(uint32_t sample, int32_t status, const void *const *outputs) {
    uint32_t length = 8;
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        length += fg_model_output_bytes(i);
    }
    frame_begin(FG_FRAME_SAMPLE, length);
    send_u32(sample);
    send_u32((uint32_t)status);
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        fg_link_send_part(outputs[i], fg_model_output_bytes(i));
    }
    frame_end();
}

void fg_frame_send_error(uint8_t code, uint32_t detail) {
    const uint8_t header[4] = {code};
    frame_begin(FG_FRAME_ERROR, sizeof header + 4u);
    fg_link_send_part(header, sizeof header);
    send_u32(detail);
    frame_end();
}

#define SCB_REG(address) (*(volatile uint32_t *)(address))

void fg_frame_send_fault(int32_t step, const fg_exception_frame *frame, uint32_t exc_return) {
    uint32_t ipsr = 0;
#if defined(__arm__)
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
#endif
    static const fg_exception_frame unknown = {0};
    if (frame == NULL) {
        frame = &unknown; /* the stack overflowed: the registers were not saved anywhere readable */
    }
    const uint32_t words[10] = {
        (uint32_t)step, ipsr & 0x1FFu, frame->pc, frame->lr, frame->xpsr,
        SCB_REG(0xE000ED28u), /* CFSR */
        SCB_REG(0xE000ED2Cu), /* HFSR */
        SCB_REG(0xE000ED34u), /* MMFAR */
        SCB_REG(0xE000ED38u), /* BFAR */
        exc_return,
    };
    frame_begin(FG_FRAME_FAULT, sizeof words);
    for (unsigned i = 0; i < 10; ++i) {
        send_u32(words[i]);
    }
    frame_end();
}
