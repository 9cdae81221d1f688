/* Profiling firmware: receives the model inputs over the UART straight into the workspace pool, runs the model
 * once (or, for a sequence, as many times as asked) with the step hooks timing every step, sends the outputs and the
 * per-step counts back, and exits. Linked with
 * samples (fg_dataset.h) it is a dataset firmware: it runs each of them and sends back only the outputs.
 * The protocol is in fg_protocol.h; a fault anywhere is reported with the step that was running. */
#include <stdint.h>
#include <string.h>

#include "fg/hooks.h"
#include "fg_dataset.h"
#include "fg_frames.h"
#include "fg_link.h"
#include "fg_port.h"
#include "fg_protocol.h"
#include "model.h"
#include "fg_user_buffers.h"

#ifndef FG_ENABLE_HOOKS
#error "the profiling firmware needs FG_ENABLE_HOOKS"
#endif

static uint64_t step_counts[FG_MODEL_NUM_STEPS];
static uint64_t step_started_at;
static volatile int32_t running_step = -1; /* read by the fault report */

void fg_hook_step_begin(int step) {
    running_step = step;
    step_started_at = fg_cycles_now();
}

void fg_hook_step_end(int step) {
    step_counts[step] = fg_cycles_now() - step_started_at;
    running_step = -1;
}

void fg_hook_tensor_ready(int step, int tensor, const void *data, size_t bytes) {
    (void)step;
    (void)tensor;
    (void)data;
    (void)bytes;
}

/* The frames of fg_frames.c go straight on the UART. */
void fg_frame_open(void) {}
void fg_frame_close(void) {}

static void fail(uint8_t code, uint32_t detail) __attribute__((noreturn));
static void fail(uint8_t code, uint32_t detail) {
    fg_frame_send_error(code, detail);
    fg_exit(FG_EXIT_PROTOCOL_ERROR);
}

/* The rest of an INPUT frame (type and length already read): the tensor goes where fg_model_input() points.
 * Returns the input's index. */
static int receive_input(uint32_t length) {
    if (length < 1) {
        fail(FG_ERROR_BAD_LENGTH, length);
    }
    uint8_t index;
    fg_link_receive_part(&index, 1);
    if (index >= FG_MODEL_NUM_INPUTS) {
        fail(FG_ERROR_BAD_INDEX, index);
    }
    if (length - 1u != fg_model_input_bytes(index)) {
        fail(FG_ERROR_BAD_LENGTH, length);
    }
    fg_link_receive_part(fg_model_input(index), length - 1u);
    if (!fg_link_receive_end()) {
        fail(FG_ERROR_BAD_CRC, index);
    }
    return index;
}

/* Reads the CRC of an empty frame. */
static void receive_empty(uint8_t type, uint32_t length) {
    if (length != 0) {
        fail(FG_ERROR_BAD_LENGTH, length);
    }
    if (!fg_link_receive_end()) {
        fail(FG_ERROR_BAD_CRC, type);
    }
}

/* The payload of a request made of `count` u32 values, and its CRC. */
static void receive_words(uint8_t type, uint32_t length, uint32_t *words, uint32_t count) {
    if (length != 4u * count) {
        fail(FG_ERROR_BAD_LENGTH, length);
    }
    for (uint32_t i = 0; i < count; ++i) {
        uint8_t bytes[4];
        fg_link_receive_part(bytes, sizeof bytes);
        words[i] = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    }
    if (!fg_link_receive_end()) {
        fail(FG_ERROR_BAD_CRC, type);
    }
}

/* A dataset firmware (fg_dataset.h): every sample it holds through the model, one SAMPLE frame each, then DONE.
 * The request says what the host built into the image; a firmware holding anything else refuses it. */
static void dataset_session(uint32_t length) __attribute__((noreturn));
static void dataset_session(uint32_t length) {
    uint32_t request[2];
    receive_words(FG_FRAME_DATASET_REQUEST, length, request, 2);
    const fg_dataset_image *image = &fg_dataset;
    if (image == NULL || image->magic != FG_DATASET_MAGIC) {
        fail(FG_ERROR_NO_DATASET, 0);
    }
    uint32_t sample_bytes = 0;
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        sample_bytes += fg_model_input_bytes(i);
    }
    if (request[0] != image->samples || request[1] != image->sample_bytes || sample_bytes != image->sample_bytes) {
        fail(FG_ERROR_BAD_LENGTH, image->sample_bytes);
    }
    const void *outputs[FG_MODEL_NUM_OUTPUTS];
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        outputs[i] = fg_model_output(i);
    }
    const uint8_t *sample = image->data;
    for (uint32_t s = 0; s < image->samples; ++s) {
        for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
            memcpy(fg_model_input(i), sample, fg_model_input_bytes(i));
            sample += fg_model_input_bytes(i);
        }
        fg_frame_send_sample(s, fg_model_invoke(), outputs);
    }
    fg_frame_send_done(0);
    fg_exit(FG_EXIT_OK);
}

static void step_session(int counter_kind) __attribute__((noreturn));

/* Answers HELLO_REQUESTs until one INPUT frame per model input has arrived, in any order, written where
 * fg_model_input() points. Before the first invocation's inputs (first), a STEP_SESSION or DATASET_REQUEST frame
 * hands over to that session, and a SEQUENCE_REQUEST sets *invocations. */
static void receive_inputs(int counter_kind, int first, uint32_t *invocations) {
    uint32_t missing = FG_MODEL_NUM_INPUTS;
    uint8_t received[FG_MODEL_NUM_INPUTS] = {0};
    while (missing > 0) {
        uint8_t type;
        uint32_t length;
        fg_link_receive_begin(&type, &length);
        if (type == FG_FRAME_HELLO_REQUEST && length == 0) {
            receive_empty(type, length);
            fg_frame_send_hello(counter_kind);
            continue;
        }
        if (first && type == FG_FRAME_STEP_SESSION) {
            receive_empty(type, length);
            step_session(counter_kind);
        }
        if (first && type == FG_FRAME_DATASET_REQUEST) {
            dataset_session(length);
        }
        if (first && missing == FG_MODEL_NUM_INPUTS && type == FG_FRAME_SEQUENCE_REQUEST) {
            receive_words(type, length, invocations, 1);
            if (*invocations == 0) {
                fail(FG_ERROR_BAD_LENGTH, 0);
            }
            first = 0;  /* one request, before any input */
            continue;
        }
        if (type != FG_FRAME_INPUT) {
            fail(FG_ERROR_UNEXPECTED_FRAME, type);
        }
        int index = receive_input(length);
        if (!received[index]) {
            received[index] = 1;
            --missing;
        }
    }
}

/* FG_NO_STEP_SESSION: a packed build without the step session (bench/packing.py measures what it costs). */
#if defined(FG_MODEL_INTERFACE_PACKED) && !defined(FG_NO_STEP_SESSION)
static void run_step(uint32_t step) {
    int32_t status = FG_PACKED_ERR_NO_SUCH_STEP;
    if (step < FG_MODEL_NUM_STEPS) {
        fg_hook_step_begin((int)step); /* the fault report names the step */
        status = fg_model_call_step((int)step);
        fg_hook_step_end((int)step);
    }
    uint8_t payload[16];
    fg_put_u32(payload, step);
    fg_put_u32(payload + 4, (uint32_t)status);
    fg_put_u64(payload + 8, step < FG_MODEL_NUM_STEPS ? step_counts[step] : 0);
    fg_link_send(FG_FRAME_STEP_DONE, payload, sizeof payload);
}

/* The DLTensor of one tensor argument of a step, through the registry; NULL with *status set if there is none. */
static const DLTensor *step_tensor(uint32_t step, uint32_t argument, int32_t *status) {
    *status = FG_PACKED_ERR_NO_SUCH_STEP;
    if (step >= FG_MODEL_NUM_STEPS) {
        return NULL;
    }
    const fg_packed_entry *entry = &fg_model_registry[step];
    *status = FG_PACKED_ERR_NO_SUCH_ARG;
    if (entry->function == NULL || argument + 1u >= (uint32_t)entry->num_args ||
        entry->type_codes[argument + 1u] != kTVMDLTensorHandle) {
        return NULL;
    }
    *status = FG_PACKED_OK;
    return (const DLTensor *)entry->args[argument + 1u].v_handle;
}

static void send_tensor(uint32_t step, uint32_t argument) {
    int32_t status;
    const DLTensor *tensor = step_tensor(step, argument, &status);
    uint32_t bytes = 0;
    if (tensor != NULL) {
        bytes = ((uint32_t)tensor->dtype.bits * tensor->dtype.lanes + 7u) / 8u;
        for (int32_t d = 0; d < tensor->ndim; ++d) {
            bytes *= (uint32_t)tensor->shape[d];
        }
    }
    uint8_t header[12];
    fg_put_u32(header, step);
    fg_put_u32(header + 4, argument);
    fg_put_u32(header + 8, (uint32_t)status);
    fg_link_send_begin(FG_FRAME_TENSOR, sizeof header + bytes);
    fg_link_send_part(header, sizeof header);
    if (bytes > 0) {
        fg_link_send_part((const uint8_t *)tensor->data + tensor->byte_offset, bytes);
    }
    fg_link_send_end();
}

/* The host drives the schedule one step at a time and reads any tensor between steps (fg_protocol.h). */
static void step_session(int counter_kind) {
    fg_link_send(FG_FRAME_SESSION_READY, NULL, 0);
    fg_cycles_restart();
    for (;;) {
        uint8_t type;
        uint32_t length;
        fg_link_receive_begin(&type, &length);
        if (type == FG_FRAME_INPUT) {
            (void)receive_input(length);
            continue;
        }
        uint32_t words[2];
        if (type == FG_FRAME_STEP_REQUEST) {
            receive_words(type, length, words, 1);
            run_step(words[0]);
        } else if (type == FG_FRAME_TENSOR_REQUEST) {
            receive_words(type, length, words, 2);
            send_tensor(words[0], words[1]);
        } else if (type == FG_FRAME_HELLO_REQUEST) {
            receive_empty(type, length);
            fg_frame_send_hello(counter_kind);
        } else if (type == FG_FRAME_END_REQUEST) {
            receive_empty(type, length);
            fg_frame_send_done(0);
            fg_exit(FG_EXIT_OK);
        } else {
            fail(FG_ERROR_UNEXPECTED_FRAME, type);
        }
    }
}
#else
static void step_session(int counter_kind) {
    (void)counter_kind;
    fail(FG_ERROR_NOT_PACKED, FG_FRAME_STEP_SESSION);
}
#endif

static void send_results(int counter_kind, uint64_t total, int32_t status) {
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        fg_frame_send_output(i, fg_model_output(i));
    }
    fg_frame_send_profile(counter_kind, total, step_counts);
    fg_frame_send_stack(fg_stack_used(), fg_stack_reserved());
    fg_frame_send_done(status);
}

void fg_fault_report(const fg_exception_frame *frame, uint32_t exc_return) {
    fg_frame_send_fault(running_step, frame, exc_return);
    fg_exit(FG_EXIT_FAULT);
}

/* One invocation, timed, and its results sent. */
static int32_t invoke(int counter_kind) {
    fg_cycles_restart();
    uint64_t started_at = fg_cycles_now();
    int32_t status = fg_model_invoke();
    uint64_t total = fg_cycles_now() - started_at;
    send_results(counter_kind, total, status);
    return status;
}

int main(void) {
    fg_uart_init();
    int counter_kind = fg_cycles_init();
    uint32_t invocations = 1;
    receive_inputs(counter_kind, 1, &invocations);
    int32_t status = invoke(counter_kind);
    for (uint32_t i = 1; i < invocations && status == 0; ++i) {
        receive_inputs(counter_kind, 0, &invocations);
        status = invoke(counter_kind);
    }
    return status == 0 ? FG_EXIT_OK : FG_EXIT_MODEL_ERROR;
}
