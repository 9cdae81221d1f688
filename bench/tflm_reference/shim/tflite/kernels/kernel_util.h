/* Shim (firmware-gen's own code): reference/broadcast_to.h's path to kernel_util.h (TfLiteTypeGetSize). */
#ifndef FG_SHIM_TFLITE_KERNELS_KERNEL_UTIL_H
#define FG_SHIM_TFLITE_KERNELS_KERNEL_UTIL_H
#include "tensorflow/lite/kernels/kernel_util.h"
#endif
