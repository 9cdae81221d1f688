/* Shim (firmware-gen's own code): elu.cc (the newest stored version) includes TFLM's later
 * tensorflow/lite/micro/kernels/internal/ tree; this path leads to the d138bfcf header of the same name. */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_INTERNAL_CPPMATH_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_INTERNAL_CPPMATH_H
#include "tflite/kernels/internal/cppmath.h"
#endif
