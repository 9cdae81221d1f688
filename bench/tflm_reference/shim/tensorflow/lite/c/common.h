/* Shim (firmware-gen's own code): the micro kernels' path to the C API header, see tflite/core/c/common.h. */
#ifndef FG_SHIM_TENSORFLOW_LITE_C_COMMON_H
#define FG_SHIM_TENSORFLOW_LITE_C_COMMON_H
#include "tflite/core/c/common.h"
#endif
