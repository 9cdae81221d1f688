#include "fg/support/fixedpoint.h"
#include "fg/prelu.h"

typedef struct {
    const fg_prelu_params *params;
    const int8_t *non_negative; /* output of each input byte (indexed by byte + 128) whose x is >= 0; or NULL */
} prelu_context;

static inline int8_t prelu_one(const fg_prelu_params *p, int32_t x, int32_t alpha) {
    return fg_saturate_s8(fg_prelu_value(p, x, alpha));
}

/* The parameters are read into a local copy once per row: the int8 stores could alias them, which would otherwise
 * make the compiler reload them for each element. */
static void prelu_row(const void *context, const void *input_bytes, int32_t input_step, const void *alpha_bytes,
                      int32_t alpha_step, void *output, int32_t n) {
    const prelu_context *c = (const prelu_context *)context;
    const int8_t *input = (const int8_t *)input_bytes, *alpha = (const int8_t *)alpha_bytes;
    int8_t *out = (int8_t *)output;
    const fg_prelu_params p = *c->params;
    const int8_t *const non_negative = c->non_negative;
    for (int8_t *const end = out + n; out < end; input += input_step, alpha += alpha_step) {
        const int32_t x = *input + p.input_offset;
        *out++ = (x >= 0 && non_negative != 0) ? non_negative[*input + 128] : prelu_one(&p, x, *alpha);
    }
}

void fg_prelu_s8(const fg_prelu_params *params, const int8_t *input, const int8_t *alpha, int8_t *output) {
    int8_t table[256];
    prelu_context context = {params, 0};
    if (fg_broadcast_outputs(&params->shape) >= FG_BROADCAST_TABLE_MIN_OUTPUTS) {
        /* the non-negative branch depends on the input byte only: tabulated once per call (256 bytes on the stack) */
        for (int32_t v = -128; v < 128; ++v) {
            const int32_t x = v + params->input_offset;
            table[v + 128] = x >= 0 ? prelu_one(params, x, 0) : 0;
        }
        context.non_negative = table;
    }
    fg_broadcast_binary(&params->shape, sizeof(int8_t), &context, input, alpha, output, prelu_row);
}
