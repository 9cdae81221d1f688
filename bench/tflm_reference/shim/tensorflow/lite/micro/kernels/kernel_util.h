/* Shim (firmware-gen's own code) for TFLM's micro/kernels/kernel_util.h, micro_context.h and the registration
 * type: the accessors an Eval uses read the case's TfLiteEvalTensor and TfLiteNode (see tflite/core/c/common.h);
 * what only the never-called Prepare functions name is there so that they compile. */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_KERNEL_UTIL_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_KERNEL_UTIL_H
#include "tensorflow/lite/kernels/kernel_util.h"
#include "tflite/core/c/common.h"
#include "tensorflow/lite/micro/micro_log.h"  // TFLM's kernel_util.h brings MicroPrintf (pack.cc relies on it)
#include "tflite/kernels/internal/types.h"

#define TF_LITE_ENSURE(context, condition) \
  do {                                     \
    (void)(context);                       \
    if (!(condition)) return kTfLiteError; \
  } while (0)
#define TF_LITE_ENSURE_MSG(context, condition, message) TF_LITE_ENSURE(context, condition)
#define TF_LITE_ENSURE_EQ(context, a, b) TF_LITE_ENSURE(context, (a) == (b))
#define TF_LITE_ENSURE_TYPES_EQ(context, a, b) TF_LITE_ENSURE(context, (a) == (b))
#define TF_LITE_ENSURE_STATUS(status) \
  do {                                \
    if ((status) != kTfLiteOk) return kTfLiteError; \
  } while (0)
#define TF_LITE_ENSURE_OK(context, status) TF_LITE_ENSURE_STATUS(status)

inline const char* TfLiteTypeGetName(TfLiteType) { return ""; }

struct TFLMRegistration {
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  // The older kernels (pack.cc) return RegisterOp's result as a TfLiteRegistration.
  operator TfLiteRegistration() const { return {init, free, prepare, invoke, nullptr, 0, nullptr, 0}; }
};

namespace tflite {
class MicroContext {
 public:
  TfLiteTensor* AllocateTempInputTensor(const TfLiteNode*, int) { return nullptr; }
  TfLiteTensor* AllocateTempOutputTensor(const TfLiteNode*, int) { return nullptr; }
  void DeallocateTempTfLiteTensor(TfLiteTensor*) {}
};
inline MicroContext* GetMicroContext(const TfLiteContext*) { return nullptr; }

namespace micro {
inline TFLMRegistration RegisterOp(void* (*init)(TfLiteContext*, const char*, size_t),
                                   TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*),
                                   TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*)) {
  return {init, nullptr, prepare, invoke};
}
inline const TfLiteEvalTensor* GetEvalInput(const TfLiteContext*, const TfLiteNode* node, int index) {
  return node->inputs[index];
}
inline TfLiteEvalTensor* GetEvalOutput(const TfLiteContext*, const TfLiteNode* node, int index) {
  return node->outputs[index];
}
inline RuntimeShape GetTensorShape(const TfLiteEvalTensor* tensor) {
  return RuntimeShape(tensor->dims->size, reinterpret_cast<const int32_t*>(tensor->dims->data));
}
inline TfLiteStatus CreateWritableTensorDimsWithCopy(TfLiteContext*, TfLiteTensor*, TfLiteEvalTensor*) {
  return kTfLiteError;
}
template <typename T>
T* GetTensorData(TfLiteEvalTensor* tensor) {
  return static_cast<T*>(tensor->data.raw);
}
template <typename T>
const T* GetTensorData(const TfLiteEvalTensor* tensor) {
  return static_cast<const T*>(tensor->data.raw_const);
}
}  // namespace micro
}  // namespace tflite
#endif
