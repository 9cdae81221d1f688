/* Shim (firmware-gen's own code): the micro kernels' path to op_macros.h, see tflite/kernels/op_macros.h. */
#ifndef FG_SHIM_TENSORFLOW_LITE_KERNELS_OP_MACROS_H
#define FG_SHIM_TENSORFLOW_LITE_KERNELS_OP_MACROS_H
#include "tflite/kernels/op_macros.h"
#endif
