/* A stand-in for a generated model.h, for the host build of the firmware's frame parser (harness.c): two inputs
 * and two outputs of odd sizes, three steps. The harness provides the functions. */
#ifndef FG_MODEL_H
#define FG_MODEL_H

#include <stdint.h>

#define FG_MODEL_NAME "link_fuzz"
#define FG_MODEL_NUM_STEPS 3
#define FG_MODEL_WORKSPACE_BYTES 4096
#define FG_MODEL_NUM_INPUTS 2
#define FG_MODEL_NUM_OUTPUTS 2
#define FG_MODEL_IO_IN_POOL 1

void *fg_model_input(int index);
void *fg_model_output(int index);
int fg_model_invoke(void);
uint32_t fg_model_input_bytes(int index);
uint32_t fg_model_output_bytes(int index);

#endif /* FG_MODEL_H */
