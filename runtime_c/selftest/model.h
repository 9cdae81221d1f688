/* The self-test firmware to fg_frames.c: a model with no inputs, no outputs and no steps, so that its HELLO says
 * it runs no model (the host's selftest expects exactly that). */
#ifndef FG_MODEL_H
#define FG_MODEL_H

#include <stdint.h>

#define FG_MODEL_NAME "selftest"
#define FG_MODEL_NUM_STEPS 0
#define FG_MODEL_WORKSPACE_BYTES 0
#define FG_MODEL_NUM_INPUTS 0
#define FG_MODEL_NUM_OUTPUTS 0

uint32_t fg_model_input_bytes(int index);
uint32_t fg_model_output_bytes(int index);

#endif /* FG_MODEL_H */
