/* Shim (firmware-gen's own code): MicroContext is in the micro kernel_util.h shim. */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_CONTEXT_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_CONTEXT_H
#include "tensorflow/lite/micro/kernels/kernel_util.h"
#endif
