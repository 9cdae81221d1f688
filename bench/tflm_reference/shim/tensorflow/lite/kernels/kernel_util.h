/* Shim (firmware-gen's own code): TFLite's kernel_util.h; nothing of it is named by the code the bench compiles. */
#ifndef FG_SHIM_TENSORFLOW_LITE_KERNELS_KERNEL_UTIL_H
#define FG_SHIM_TENSORFLOW_LITE_KERNELS_KERNEL_UTIL_H
#endif
