/* Argument checking shared by every packed shim. */
#include <stddef.h>

#include "fg/packed.h"

static int same_dtype(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

int32_t fg_packed_check(const TVMValue *args, const int32_t *type_codes, int32_t num_args,
                        const fg_packed_signature *signature) {
    if (args == NULL || type_codes == NULL || signature == NULL) {
        return FG_PACKED_ERR_NULL;
    }
    if (num_args != 1 + signature->num_tensors) {
        return FG_PACKED_ERR_NUM_ARGS;
    }
    if (type_codes[0] != kTVMOpaqueHandle || args[0].v_handle == NULL) {
        return FG_PACKED_ERR_TYPE_CODE;
    }
    for (int32_t i = 0; i < signature->num_tensors; ++i) {
        const fg_packed_arg_spec *spec = &signature->tensors[i];
        if (type_codes[1 + i] == kTVMNullptr && spec->ndim < 0) {
            continue; /* an absent optional input (e.g. a missing bias) */
        }
        if (type_codes[1 + i] != kTVMDLTensorHandle) {
            return FG_PACKED_ERR_TYPE_CODE;
        }
        const DLTensor *tensor = (const DLTensor *)args[1 + i].v_handle;
        if (tensor == NULL || tensor->data == NULL) {
            return FG_PACKED_ERR_NULL;
        }
        if (!same_dtype(tensor->dtype, spec->dtype)) {
            return FG_PACKED_ERR_DTYPE;
        }
        if (tensor->ndim != spec->ndim || tensor->strides != NULL) {
            return FG_PACKED_ERR_SHAPE;
        }
        if (tensor->shape == spec->shape) {
            continue; /* the generated descriptors share their signature's shape array */
        }
        for (int32_t d = 0; d < spec->ndim; ++d) {
            if (tensor->shape[d] != spec->shape[d]) {
                return FG_PACKED_ERR_SHAPE;
            }
        }
    }
    return FG_PACKED_OK;
}

const char *fg_packed_error_name(int32_t code) {
    switch (code) {
    case FG_PACKED_OK: return "ok";
    case FG_PACKED_ERR_NUM_ARGS: return "wrong argument count";
    case FG_PACKED_ERR_TYPE_CODE: return "wrong type code";
    case FG_PACKED_ERR_DTYPE: return "wrong dtype";
    case FG_PACKED_ERR_SHAPE: return "wrong shape";
    case FG_PACKED_ERR_NULL: return "null argument";
    case FG_PACKED_ERR_NO_SUCH_STEP: return "no such step";
    case FG_PACKED_ERR_NO_SUCH_ARG: return "no such tensor argument";
    default: return "unknown error";
    }
}
