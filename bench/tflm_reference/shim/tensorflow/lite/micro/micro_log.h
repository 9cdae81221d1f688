/* Shim (firmware-gen's own code) for TFLM's micro_log.h: the bench firmware prints nothing of the kernels. */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_LOG_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_LOG_H
inline void MicroPrintf(const char*, ...) {}
#endif
