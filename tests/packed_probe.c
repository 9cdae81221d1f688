/* Calls step 0 of a packed model with bad arguments and prints what each call returned; the kernel must
 * never run on them (its output buffer keeps its sentinel). */
#include <stdio.h>
#include <string.h>

#include "model.h"

static int8_t sentinel_output[1 << 16];

static int32_t call(const fg_packed_entry *entry, TVMValue *args, int32_t *codes, int32_t num_args) {
    TVMValue ret;
    int32_t ret_code;
    return entry->function(args, codes, num_args, &ret, &ret_code, (void *)entry->signature);
}

static int untouched(void) {
    for (size_t i = 0; i < sizeof sentinel_output; ++i) {
        if (sentinel_output[i] != 0x5a) {
            return 0;
        }
    }
    return 1;
}

int main(void) {
    const fg_packed_entry *entry = &fg_model_registry[0];
    const int32_t n = entry->num_args;
    TVMValue args[16];
    int32_t codes[16];
    DLTensor tensors[16];
    int64_t shape[16][8];
    memset(sentinel_output, 0x5a, sizeof sentinel_output);
    for (int32_t i = 0; i < n; ++i) {
        args[i] = entry->args[i];
        codes[i] = entry->type_codes[i];
        if (codes[i] == kTVMDLTensorHandle) {
            tensors[i] = *(const DLTensor *)args[i].v_handle;
            memcpy(shape[i], tensors[i].shape, (size_t)tensors[i].ndim * sizeof(int64_t));
            tensors[i].shape = shape[i];
            args[i].v_handle = &tensors[i];
        }
    }
    tensors[n - 1].data = sentinel_output; /* the output goes to the sentinel buffer */

    printf("count %s\n", fg_packed_error_name(call(entry, args, codes, n - 1)));
    codes[1] = kTVMArgInt;
    printf("type_code %s\n", fg_packed_error_name(call(entry, args, codes, n)));
    codes[1] = kTVMDLTensorHandle;
    tensors[1].dtype.bits = 16;
    printf("dtype %s\n", fg_packed_error_name(call(entry, args, codes, n)));
    tensors[1].dtype.bits = 8;
    shape[1][tensors[1].ndim - 1] += 1;
    printf("shape %s\n", fg_packed_error_name(call(entry, args, codes, n)));
    shape[1][tensors[1].ndim - 1] -= 1;
    void *data = tensors[1].data;
    tensors[1].data = NULL;
    printf("null %s\n", fg_packed_error_name(call(entry, args, codes, n)));
    tensors[1].data = data;
    printf("untouched %d\n", untouched());
    printf("good %s\n", fg_packed_error_name(call(entry, args, codes, n)));
    printf("ran %d\n", !untouched());
    printf("step99 %s\n", fg_packed_error_name(fg_model_call_step(99)));
    printf("find %d\n", fg_model_find_step(fg_model_registry[FG_MODEL_NUM_STEPS - 1].name));
    return 0;
}
