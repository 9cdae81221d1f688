/* Shim (firmware-gen's own code) for TFLM's micro/kernels/kernel_util.h and micro_context.h: what the Prepare
 * functions of the compiled micro kernel .cc files name. They are never called (the case's setup sets their
 * parameters), so the temporary tensors are never there. */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_KERNEL_UTIL_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_KERNEL_UTIL_H
#include "tflite/core/c/common.h"

#define TF_LITE_ENSURE(context, condition) \
  do {                                     \
    (void)(context);                       \
    if (!(condition)) return kTfLiteError; \
  } while (0)

namespace tflite {
class MicroContext {
 public:
  TfLiteTensor* AllocateTempInputTensor(const TfLiteNode*, int) { return nullptr; }
  TfLiteTensor* AllocateTempOutputTensor(const TfLiteNode*, int) { return nullptr; }
  void DeallocateTempTfLiteTensor(TfLiteTensor*) {}
};
inline MicroContext* GetMicroContext(const TfLiteContext*) { return nullptr; }
}  // namespace tflite
#endif
