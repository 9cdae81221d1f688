/* Host driver for validation: runs the generated model once and records every tensor it produces.
 *
 * usage: fg_trace TRACE_FILE INPUT0.bin [INPUT1.bin ...]
 * The trace is a sequence of records: int32 step, int32 tensor, uint32 byte count, then the bytes. Records
 * with step -1 hold the model outputs as fg_model_run returned them (tensor = output index). */
#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "fg/hooks.h"

static FILE *trace;

static void write_record(int32_t step, int32_t tensor, const void *data, uint32_t bytes) {
    if (fwrite(&step, sizeof step, 1, trace) != 1 || fwrite(&tensor, sizeof tensor, 1, trace) != 1 ||
        fwrite(&bytes, sizeof bytes, 1, trace) != 1 || fwrite(data, 1, bytes, trace) != bytes) {
        fprintf(stderr, "fg_trace: cannot write the trace\n");
        exit(1);
    }
}

void fg_hook_step_begin(int step) { (void)step; }
void fg_hook_step_end(int step) { (void)step; }
void fg_hook_tensor_ready(int step, int tensor, const void *data, size_t bytes) {
    write_record(step, tensor, data, (uint32_t)bytes);
}

static void *read_exactly(const char *path, size_t bytes) {
    FILE *file = fopen(path, "rb");
    void *data = malloc(bytes ? bytes : 1);
    if (file == NULL || data == NULL || fread(data, 1, bytes, file) != bytes || fgetc(file) != EOF) {
        fprintf(stderr, "fg_trace: %s must hold exactly %zu bytes\n", path, bytes);
        exit(1);
    }
    fclose(file);
    return data;
}

int main(int argc, char **argv) {
    if (argc != 2 + FG_MODEL_NUM_INPUTS) {
        fprintf(stderr, "usage: %s TRACE_FILE followed by %d input file(s)\n", argv[0], FG_MODEL_NUM_INPUTS);
        return 2;
    }
    const void *inputs[FG_MODEL_NUM_INPUTS];
    void *outputs[FG_MODEL_NUM_OUTPUTS];
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        inputs[i] = read_exactly(argv[2 + i], fg_model_input_bytes(i));
    }
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        outputs[i] = malloc(fg_model_output_bytes(i) ? fg_model_output_bytes(i) : 1);
    }
    trace = fopen(argv[1], "wb");
    if (trace == NULL) {
        fprintf(stderr, "fg_trace: cannot create %s\n", argv[1]);
        return 1;
    }
    int status = fg_model_run(inputs, outputs);
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        write_record(-1, i, outputs[i], (uint32_t)fg_model_output_bytes(i));
        free(outputs[i]);
    }
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        free((void *)inputs[i]);
    }
    fclose(trace);
    return status;
}
