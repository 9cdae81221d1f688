/* The model-independent part of the host validation driver (trace_run.c) and what it needs of one model. */
#ifndef FG_TRACE_RUN_H
#define FG_TRACE_RUN_H

#include <stdint.h>

typedef struct {
    int num_inputs;
    int num_outputs;
    int (*run)(const void *const inputs[], void *const outputs[]);
    uint32_t (*input_bytes)(int index);
    uint32_t (*output_bytes)(int index);
} fg_trace_model;

/* main() of fg_trace (usage in trace_run.c) for the model. */
int fg_trace_main(int argc, char **argv, const fg_trace_model *model);

#endif /* FG_TRACE_RUN_H */
