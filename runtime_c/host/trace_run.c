/* Host driver for validation: runs the generated model and records every tensor it produces (fg_trace_main,
 * called by trace_main.c; nothing here depends on one model, so it is compiled once and cached).
 *
 * usage: fg_trace TRACE_FILE INPUT0.bin [INPUT1.bin ...]
 * Each input file holds one or more frames of its input, the same number in every file: the model runs once per
 * frame, in order, keeping its state from one run to the next (a sequence).
 * The trace is a sequence of records: int32 step, int32 tensor, uint32 byte count, then the bytes. Records
 * with step -1 hold the model outputs as fg_model_run returned them (tensor = output index); a record with step -2
 * and no bytes ends each run (tensor = the run's index). */
#include <stdio.h>
#include <stdlib.h>

#include "fg/hooks.h"
#include "trace_run.h"

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

/* The whole file, which must hold a whole number (> 0) of frames of `bytes` each; their count in *frames. */
static uint8_t *read_frames(const char *path, size_t bytes, long *frames) {
    FILE *file = fopen(path, "rb");
    long size = -1;
    if (file != NULL && fseek(file, 0, SEEK_END) == 0) {
        size = ftell(file);
        rewind(file);
    }
    uint8_t *data = size > 0 ? malloc((size_t)size) : NULL;
    if (data == NULL || bytes == 0 || size % (long)bytes != 0 || fread(data, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "fg_trace: %s must hold a whole number of %zu-byte frames\n", path, bytes);
        exit(1);
    }
    fclose(file);
    *frames = size / (long)bytes;
    return data;
}

/* An array of count pointers (at least one, so that a model without inputs or outputs needs no special case). */
static void **pointer_array(int count) {
    void **array = calloc(count > 0 ? (size_t)count : 1u, sizeof *array);
    if (array == NULL) {
        fprintf(stderr, "fg_trace: out of memory\n");
        exit(1);
    }
    return array;
}

int fg_trace_main(int argc, char **argv, const fg_trace_model *model) {
    const int num_inputs = model->num_inputs, num_outputs = model->num_outputs;
    if (argc != 2 + num_inputs) {
        fprintf(stderr, "usage: %s TRACE_FILE followed by %d input file(s)\n", argv[0], num_inputs);
        return 2;
    }
    uint8_t **data = (uint8_t **)pointer_array(num_inputs);
    const void **inputs = (const void **)pointer_array(num_inputs);
    void **outputs = pointer_array(num_outputs);
    long frames = 0;
    for (int i = 0; i < num_inputs; ++i) {
        long count = 0;
        data[i] = read_frames(argv[2 + i], model->input_bytes(i), &count);
        if (i > 0 && count != frames) {
            fprintf(stderr, "fg_trace: %s holds %ld frames, the first input %ld\n", argv[2 + i], count, frames);
            return 1;
        }
        frames = count;
    }
    for (int i = 0; i < num_outputs; ++i) {
        outputs[i] = malloc(model->output_bytes(i) ? model->output_bytes(i) : 1);
    }
    trace = fopen(argv[1], "wb");
    if (trace == NULL) {
        fprintf(stderr, "fg_trace: cannot create %s\n", argv[1]);
        return 1;
    }
    int status = 0;
    for (long frame = 0; frame < frames && status == 0; ++frame) {
        for (int i = 0; i < num_inputs; ++i) {
            inputs[i] = data[i] + (size_t)frame * model->input_bytes(i);
        }
        status = model->run((const void *const *)inputs, outputs);
        for (int i = 0; i < num_outputs; ++i) {
            write_record(-1, i, outputs[i], (uint32_t)model->output_bytes(i));
        }
        write_record(-2, (int32_t)frame, "", 0);
    }
    for (int i = 0; i < num_outputs; ++i) {
        free(outputs[i]);
    }
    for (int i = 0; i < num_inputs; ++i) {
        free(data[i]);
    }
    free(outputs);
    free((void *)inputs);
    free(data);
    fclose(trace);
    return status;
}
