/* The packed calling convention of TVM's C runtime, for models generated with --interface packed.
 *
 * Every operator is reached through one signature,
 *     int32_t fn(TVMValue *args, int32_t *type_codes, int32_t num_args, TVMValue *ret, int32_t *ret_code,
 *                void *resource_handle);
 * args[0] is the kernel's constant params struct (an opaque handle), the following args are DLTensor handles:
 * the inputs, then the outputs. The layouts below follow dlpack's DLTensor and TVM's TVMValue so that code
 * written against TVM's C runtime can call a generated model's steps. A shim checks its arguments against the
 * step's signature (resource_handle) and returns an FG_PACKED_ERR_* code instead of running on bad ones. */
#ifndef FG_PACKED_H
#define FG_PACKED_H

#include <stdint.h>

typedef enum { kDLCPU = 1 } DLDeviceType;
typedef enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2 } DLDataTypeCode;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

typedef union {
    int64_t v_int64;
    double v_float64;
    void *v_handle;
    const char *v_str;
} TVMValue;

/* Type codes of TVM's C runtime ABI (the subset a generated model passes). */
enum {
    kTVMArgInt = 0,
    kTVMArgFloat = 2,
    kTVMOpaqueHandle = 3,
    kTVMNullptr = 4,
    kTVMDLTensorHandle = 7,
};

typedef int32_t (*TVMBackendPackedCFunc)(TVMValue *args, int32_t *type_codes, int32_t num_args, TVMValue *ret,
                                         int32_t *ret_code, void *resource_handle);

/* Errors a shim returns instead of running its kernel. */
enum {
    FG_PACKED_OK = 0,
    FG_PACKED_ERR_NUM_ARGS = -1,
    FG_PACKED_ERR_TYPE_CODE = -2,
    FG_PACKED_ERR_DTYPE = -3,
    FG_PACKED_ERR_SHAPE = -4,
    FG_PACKED_ERR_NULL = -5,
    FG_PACKED_ERR_NO_SUCH_STEP = -6,
    FG_PACKED_ERR_NO_SUCH_ARG = -7, /* a host asked for a tensor argument the step does not have */
};

/* What one argument must be: its dtype and shape. */
typedef struct {
    DLDataType dtype;
    int32_t ndim;
    const int64_t *shape;
} fg_packed_arg_spec;

/* The signature of one step: the params handle, then `num_tensors` tensors. */
typedef struct {
    int32_t num_tensors;
    const fg_packed_arg_spec *tensors;
} fg_packed_signature;

/* One entry of a model's registry: a step callable by name. */
typedef struct {
    const char *name;
    TVMBackendPackedCFunc function;
    TVMValue *args;
    int32_t *type_codes;
    int32_t num_args;
    const fg_packed_signature *signature;
} fg_packed_entry;

/* Checks count, type codes, dtypes and shapes of args against signature; FG_PACKED_OK or an error code. */
int32_t fg_packed_check(const TVMValue *args, const int32_t *type_codes, int32_t num_args,
                        const fg_packed_signature *signature);

/* The data pointer of argument i (after fg_packed_check succeeded); NULL for an absent optional input. */
static inline void *fg_packed_data(const TVMValue *args, const int32_t *type_codes, int i) {
    if (type_codes[i] != kTVMDLTensorHandle) {
        return (void *)0;
    }
    const DLTensor *tensor = (const DLTensor *)args[i].v_handle;
    return (uint8_t *)tensor->data + tensor->byte_offset;
}

/* A readable name of an FG_PACKED_ERR_* code. */
const char *fg_packed_error_name(int32_t code);

#endif /* FG_PACKED_H */
