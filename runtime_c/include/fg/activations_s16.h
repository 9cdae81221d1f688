/* LOGISTIC, TANH, LEAKY_RELU, RELU, RELU6 and ABS on int16 tensors (16x8 models: zero points 0), elementwise, as
 * TFLite Micro's int16 kernels compute them. */
#ifndef FG_ACTIVATIONS_S16_H
#define FG_ACTIVATIONS_S16_H

#include <stdint.h>

typedef struct {
    int32_t size;              /* number of elements */
    int32_t input_multiplier;   /* the input becomes (x * multiplier + rounding) >> right_shift, ... */
    int32_t input_right_shift;  /* ... in steps of 1/(3 * 4096): the shared sigmoid table's input scale */
} fg_sigmoid_s16_params;

/* Output in Q0.15 (scale 2^-15). */
void fg_logistic_s16(const fg_sigmoid_s16_params *params, const int16_t *input, int16_t *output);
void fg_tanh_s16(const fg_sigmoid_s16_params *params, const int16_t *input, int16_t *output);

typedef struct {
    int32_t size;                 /* number of elements */
    int32_t identity_multiplier;  /* input scale / output scale, for inputs >= 0 ... */
    int32_t identity_shift;
    int32_t alpha_multiplier;     /* ... and |alpha| times it for inputs below 0 (Q31, shift left if > 0), ... */
    int32_t alpha_shift;
    int32_t alpha_sign;           /* ... then the sign of alpha: TFLM's halves round symmetrically about zero */
} fg_leaky_relu_s16_params;

void fg_leaky_relu_s16(const fg_leaky_relu_s16_params *params, const int16_t *input, int16_t *output);

typedef struct {
    int32_t size;            /* number of elements */
    int32_t multiplier;      /* RELU: input scale / output scale; RELU6: exactly 1 (2^30, shift 1) */
    int32_t shift;
    int32_t activation_min;  /* the rescaled value clamped to [min, max]: RELU 0 and 32767, RELU6 0 and six */
    int32_t activation_max;
} fg_relu_s16_params;

void fg_relu_s16(const fg_relu_s16_params *params, const int16_t *input, int16_t *output);

typedef struct {
    int32_t size;        /* number of elements */
    int32_t multiplier;  /* |x| times input scale / output scale (exactly 1 where the scales are equal) */
    int32_t shift;
} fg_abs_s16_params;

void fg_abs_s16(const fg_abs_s16_params *params, const int16_t *input, int16_t *output);

#endif /* FG_ACTIVATIONS_S16_H */
