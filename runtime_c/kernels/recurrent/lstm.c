#include <string.h>

#include "fg/support/fixedpoint.h"
#include "fg/support/int16_activations.h"
#include "fg/lstm.h"
#include "fg/support/requantize.h"

typedef struct {
    const int8_t *input[FG_LSTM_GATES];
    const int8_t *recurrent[FG_LSTM_GATES];
} lstm_weights;

/* bias + sum(row * x) over n, rescaled to Q3.12 and saturated. int8 values: int32 accumulator (wrapping as TFLM's
 * does in practice), folded bias; int16 values: int64 accumulator and bias. */
static int16_t product_s8(const int8_t *row, const int8_t *x, int32_t n, int32_t bias, int32_t multiplier,
                          int32_t shift) {
    uint32_t acc = (uint32_t)bias;
    for (int32_t i = 0; i < n; ++i) {
        acc += (uint32_t)((int32_t)row[i] * (int32_t)x[i]);
    }
    return fg_saturate_s16(fg_multiply_by_quantized_multiplier(fg_wrapped_i32(acc), multiplier, shift));
}

static int16_t product_s16(const int8_t *row, const int16_t *x, int32_t n, int64_t bias, int32_t multiplier,
                           int32_t shift) {
    int64_t acc = bias;
    for (int32_t i = 0; i < n; ++i) {
        acc += (int32_t)row[i] * (int32_t)x[i];
    }
    return fg_saturate_s16(fg_multiply_by_quantized_multiplier_64(acc, multiplier, shift));
}

/* Gate g of unit u: its two products (input, previous hidden state), added with saturation, then the gate's
 * non-linearity (Q0.15 out): tanh for the cell gate, sigmoid for the others. x and h: the step's rows. */
static int16_t gate(const fg_lstm_params *p, const lstm_weights *w, int g, int32_t u, const void *x, const void *h) {
    const int8_t *input_row = w->input[g] + u * p->input_size, *recurrent_row = w->recurrent[g] + u * p->units;
    const int32_t at = g * p->units + u;
    int16_t from_input, from_hidden;
    if (p->activation_bits == 16) {
        from_input = product_s16(input_row, (const int16_t *)x, p->input_size, p->input_bias64[at],
                                 p->input_multiplier[g], p->input_shift[g]);
        from_hidden = product_s16(recurrent_row, (const int16_t *)h, p->units, 0, p->recurrent_multiplier[g],
                                  p->recurrent_shift[g]);
    } else {
        from_input = product_s8(input_row, (const int8_t *)x, p->input_size, p->input_bias[at],
                                p->input_multiplier[g], p->input_shift[g]);
        from_hidden = product_s8(recurrent_row, (const int8_t *)h, p->units, p->recurrent_bias[at],
                                 p->recurrent_multiplier[g], p->recurrent_shift[g]);
    }
    const int16_t pre = fg_saturate_s16((int32_t)from_input + (int32_t)from_hidden);
    if (g == FG_LSTM_CELL_GATE) {
        return fg_tanh_s16_value(pre, 3, 0); /* Q3.12 in: TFLM's tanh with cell_state_scale_power -12 */
    }
    return fg_logistic_s16_value(pre, 3, 0);
}

static int32_t product(int16_t a, int16_t b, int32_t multiplier, int32_t shift) {
    return fg_multiply_by_quantized_multiplier((int32_t)a * (int32_t)b, multiplier, shift);
}

/* One time step of one batch row: every unit's gates from x and the previous hidden state h, its cell state
 * updated in place, its new hidden value written to out (h is read until the last unit, so out must not be h). */
static void step(const fg_lstm_params *p, const lstm_weights *w, const void *x, const void *h, int16_t *cell,
                 void *out) {
    for (int32_t u = 0; u < p->units; ++u) {
        const int16_t forget = gate(p, w, FG_LSTM_FORGET_GATE, u, x, h);
        const int16_t input = gate(p, w, FG_LSTM_INPUT_GATE, u, x, h);
        const int16_t candidate = gate(p, w, FG_LSTM_CELL_GATE, u, x, h);
        int16_t c = fg_saturate_s16(fg_saturate_s16(product(forget, cell[u], p->forget_multiplier, p->forget_shift)) +
                                    fg_saturate_s16(product(input, candidate, p->update_multiplier, p->update_shift)));
        if (p->clip_cell) {
            c = (int16_t)fg_clamp_i32(c, -p->cell_clip, p->cell_clip);
        }
        cell[u] = c;
        const int16_t output_gate = gate(p, w, FG_LSTM_OUTPUT_GATE, u, x, h);
        const int16_t squashed = fg_tanh_s16_value(c, p->cell_tanh_multiplier, p->cell_tanh_shift);
        const int32_t hidden = p->hidden_zero_point +
                               product(squashed, output_gate, p->hidden_multiplier, p->hidden_shift);
        if (p->activation_bits == 16) {
            ((int16_t *)out)[u] = fg_saturate_s16(hidden);
        } else {
            ((int8_t *)out)[u] = fg_saturate_s8(hidden);
        }
    }
}

void fg_lstm(const fg_lstm_params *p, const void *input, const int8_t *input_to_input_weights,
             const int8_t *input_to_forget_weights, const int8_t *input_to_cell_weights,
             const int8_t *input_to_output_weights, const int8_t *recurrent_to_input_weights,
             const int8_t *recurrent_to_forget_weights, const int8_t *recurrent_to_cell_weights,
             const int8_t *recurrent_to_output_weights, void *output, void *hidden_state, int16_t *cell_state) {
    const lstm_weights w = {
        {input_to_input_weights, input_to_forget_weights, input_to_cell_weights, input_to_output_weights},
        {recurrent_to_input_weights, recurrent_to_forget_weights, recurrent_to_cell_weights,
         recurrent_to_output_weights}};
    const int32_t bytes = p->activation_bits / 8;
    /* Batch rows are independent, so one loop order serves both layouts. */
    for (int32_t b = 0; b < p->batches; ++b) {
        uint8_t *h = (uint8_t *)hidden_state + b * p->units * bytes;
        for (int32_t t = 0; t < p->time_steps; ++t) {
            const int32_t row = p->time_major ? t * p->batches + b : b * p->time_steps + t;
            uint8_t *out = (uint8_t *)output + row * p->units * bytes;
            step(p, &w, (const uint8_t *)input + row * p->input_size * bytes, h, cell_state + b * p->units, out);
            memcpy(h, out, (size_t)(p->units * bytes));
        }
    }
}
