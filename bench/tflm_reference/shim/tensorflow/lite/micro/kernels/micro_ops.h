/* Shim (firmware-gen's own code) for TFLM's micro_ops.h: the registrations of the micro kernel .cc files the
 * bench compiles (harness.TFLM_SOURCES). */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_MICRO_OPS_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_MICRO_OPS_H
#include "tensorflow/lite/micro/kernels/kernel_util.h"
namespace tflite {
TFLMRegistration Register_SQUARED_DIFFERENCE();
TFLMRegistration Register_GATHER();
TFLMRegistration Register_MIRROR_PAD();
TFLMRegistration Register_ABS();
TFLMRegistration Register_RSQRT();
TFLMRegistration Register_SPLIT_V();
TfLiteRegistration Register_CAST();  // cast.cc's version predates TFLMRegistration
TfLiteRegistration Register_GATHER_ND();  // so does gather_nd.cc's
TfLiteRegistration Register_ZEROS_LIKE();  // and zeros_like.cc's
namespace micro {
TFLMRegistration Register_ELU();  // elu.cc's version declares it in tflite::micro
TFLMRegistration Register_SPLIT();  // so do split.cc's and unpack.cc's
TFLMRegistration Register_UNPACK();
}  // namespace micro
namespace ops {
namespace micro {
TfLiteRegistration Register_PACK();  // pack.cc's version declares it in tflite::ops::micro
}  // namespace micro
}  // namespace ops
}  // namespace tflite
#endif
