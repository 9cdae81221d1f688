/* Shim (firmware-gen's own code): a failed check ends the bench firmware (TFLM Micro aborts too). */
#ifndef FG_SHIM_TFLITE_KERNELS_OP_MACROS_H
#define FG_SHIM_TFLITE_KERNELS_OP_MACROS_H
#define TFLITE_ABORT __builtin_trap()
#define TFLITE_ASSERT_FALSE (static_cast<void>(0))
#endif
