/* UNIDIRECTIONAL_SEQUENCE_LSTM with an int16 cell state (TFLite Micro's integer LSTM): int8 activations with int32
 * biases, or int16 activations with int64 biases (16x8); int8 weights. */
#ifndef FG_LSTM_H
#define FG_LSTM_H

#include <stdint.h>

/* Gates in TFLite's order; the per-gate arrays below are indexed by them. */
enum { FG_LSTM_INPUT_GATE, FG_LSTM_FORGET_GATE, FG_LSTM_CELL_GATE, FG_LSTM_OUTPUT_GATE, FG_LSTM_GATES };

typedef struct {
    int32_t batches;
    int32_t time_steps;
    int32_t input_size;
    int32_t units;                  /* the state size */
    int32_t time_major;             /* 1: input [time, batches, input_size]; 0: [batches, time, input_size] */
    int32_t activation_bits;        /* 8: input, output and hidden state int8; 16: int16 (zero points 0) */
    /* Each gate's two fully-connected products (input x weights, hidden state x recurrent weights) -> Q3.12. */
    int32_t input_multiplier[FG_LSTM_GATES];
    int32_t input_shift[FG_LSTM_GATES];
    int32_t recurrent_multiplier[FG_LSTM_GATES];
    int32_t recurrent_shift[FG_LSTM_GATES];
    int32_t forget_multiplier;      /* forget gate (Q0.15) x cell state -> cell state */
    int32_t forget_shift;
    int32_t update_multiplier;      /* input gate (Q0.15) x cell gate (Q0.15) -> cell state */
    int32_t update_shift;
    int32_t clip_cell;              /* 1: the cell state is clipped to [-cell_clip, cell_clip] */
    int32_t cell_clip;
    int32_t cell_tanh_multiplier;   /* tanh of the cell state (its scale a power of two): input rescaling */
    int32_t cell_tanh_shift;
    int32_t hidden_multiplier;      /* tanh(cell) (Q0.15) x output gate (Q0.15) -> hidden state */
    int32_t hidden_shift;
    int32_t hidden_zero_point;
    /* int8: [FG_LSTM_GATES][units], computed at generation time: each gate's bias plus -input zero point x the sums
     * of its input weight rows, and -hidden zero point x the sums of its recurrent weight rows, so the products are
     * plain sums of weights x values (TFLM's sums of weights x (value - zero point), plus bias). */
    const int32_t *input_bias;
    const int32_t *recurrent_bias;
    const int64_t *input_bias64;    /* int16: [FG_LSTM_GATES][units], the gate biases (no zero points to fold) */
} fg_lstm_params;

/* input_weights[g] [units, input_size] and recurrent_weights[g] [units, units], gates in TFLite's order. input,
 * output and hidden_state are int8 or int16 (activation_bits). output: [batches, time, units] (or time-major), the
 * hidden state of each step. hidden_state [batches, units] and cell_state [batches, units] are read and updated in
 * place: they keep their bytes from one call to the next (the memory plan's `state` buffers), starting from the
 * hidden state's zero point and 0. No scratch memory. */
void fg_lstm(const fg_lstm_params *params, const void *input, const int8_t *input_to_input_weights,
             const int8_t *input_to_forget_weights, const int8_t *input_to_cell_weights,
             const int8_t *input_to_output_weights, const int8_t *recurrent_to_input_weights,
             const int8_t *recurrent_to_forget_weights, const int8_t *recurrent_to_cell_weights,
             const int8_t *recurrent_to_output_weights, void *output, void *hidden_state, int16_t *cell_state);

#endif /* FG_LSTM_H */
