/* For a model generated with --no-io-in-pool: its inputs and outputs are the caller's buffers, and the profiling
 * firmware is the caller. This gives it fg_model_input/fg_model_output/fg_model_invoke, as a model with I/O in
 * the pool has them, over one static buffer (inputs, then outputs, each 16-byte aligned). Include after model.h. */
#ifndef FG_USER_BUFFERS_H
#define FG_USER_BUFFERS_H

#if defined(FG_MODEL_IO_IN_POOL) && !FG_MODEL_IO_IN_POOL
#include <stdint.h>

static uint8_t fg_user_io[FG_MODEL_IO_BYTES] __attribute__((aligned(16)));

static uint32_t fg_user_slot_bytes(int slot) {
    uint32_t bytes = slot < FG_MODEL_NUM_INPUTS ? fg_model_input_bytes(slot)
                                                : fg_model_output_bytes(slot - FG_MODEL_NUM_INPUTS);
    return (bytes + 15u) & ~15u;
}

static uint8_t *fg_user_slot(int slot) {
    uint32_t offset = 0;
    for (int i = 0; i < slot; ++i) {
        offset += fg_user_slot_bytes(i);
    }
    return fg_user_io + offset;
}

static void *fg_model_input(int index) {
    return fg_user_slot(index);
}

static void *fg_model_output(int index) {
    return fg_user_slot(FG_MODEL_NUM_INPUTS + index);
}

static int fg_model_invoke(void) {
    const void *inputs[FG_MODEL_NUM_INPUTS];
    void *outputs[FG_MODEL_NUM_OUTPUTS];
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        inputs[i] = fg_model_input(i);
    }
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        outputs[i] = fg_model_output(i);
    }
    return fg_model_run(inputs, outputs);
}
#endif

#endif /* FG_USER_BUFFERS_H */
