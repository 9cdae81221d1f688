/* Shim (firmware-gen's own code): the one macro of tflite/core/macros.h the reference kernels use. */
#ifndef FG_SHIM_TFLITE_CORE_MACROS_H
#define FG_SHIM_TFLITE_CORE_MACROS_H
#define TFLITE_NOINLINE __attribute__((noinline))
#endif
