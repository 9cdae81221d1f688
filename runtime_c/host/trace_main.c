/* fg_trace for one generated model: the only part of the host validation driver compiled per model (the rest,
 * trace_run.c, is compiled once). The compiler checks the model's functions against fg_trace_model. */
#include "model.h"
#include "trace_run.h"

int main(int argc, char **argv) {
    const fg_trace_model model = {FG_MODEL_NUM_INPUTS, FG_MODEL_NUM_OUTPUTS, fg_model_run, fg_model_input_bytes,
                                  fg_model_output_bytes};
    return fg_trace_main(argc, argv, &model);
}
