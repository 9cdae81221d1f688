/* The frames the firmware sends to the host at the end of a run (fg_protocol.h: HELLO, OUTPUT, PROFILE, DONE,
 * ERROR, FAULT, SAMPLE), encoded once for both programs that speak the protocol: the bare-metal profiling firmware
 * (main.c) and zephyr_app (which prints them hex-encoded on the console). Built on fg_link.c's
 * fg_link_send_begin/part/end; the sizes and counts come from the model (model.h). */
#ifndef FG_FRAMES_H
#define FG_FRAMES_H

#include <stdint.h>

#include "fg_port.h"

/* Provided by the program: called before and after every frame sent here, so that it can delimit frames on its
 * transport (the bare-metal firmware adds nothing; zephyr_app puts each frame on a console line of its own). */
void fg_frame_open(void);
void fg_frame_close(void);

/* counter_kind: FG_COUNTER_* of fg_port.h, or the program's own (zephyr_app: k_cycle_get_32 cycles). */
void fg_frame_send_hello(int counter_kind);
/* Output `index` of the model, its fg_model_output_bytes(index) bytes at data. */
void fg_frame_send_output(int index, const void *data);
/* total: the whole invoke; step_counts: FG_MODEL_NUM_STEPS counts, one per step. */
void fg_frame_send_profile(int counter_kind, uint64_t total, const uint64_t *step_counts);
void fg_frame_send_done(int32_t status);
void fg_frame_send_stack(uint32_t used, uint32_t reserved);
/* Dataset session: the result of one sample, outputs[i] holding its fg_model_output_bytes(i) bytes. */
void fg_frame_send_sample(uint32_t sample, int32_t status, const void *const *outputs);
/* code: FG_ERROR_* of fg_protocol.h. */
void fg_frame_send_error(uint8_t code, uint32_t detail);
/* From a fault handler (Cortex-M): the FAULT frame, with the running step (-1: none), the exception number, the
 * stacked registers (frame NULL: they were not readable) and the fault status registers. */
void fg_frame_send_fault(int32_t step, const fg_exception_frame *frame, uint32_t exc_return);

#endif /* FG_FRAMES_H */
