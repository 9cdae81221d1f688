/* Shim (firmware-gen's own code) for TFLite's kernels/kernel_util.h: what the micro kernels' Prepare functions
 * name (never called), and TfLiteTypeGetSize, which reference/broadcast_to.h calls. */
#ifndef FG_SHIM_TENSORFLOW_LITE_KERNELS_KERNEL_UTIL_H
#define FG_SHIM_TENSORFLOW_LITE_KERNELS_KERNEL_UTIL_H
#include "tflite/core/c/common.h"
namespace tflite {
inline int NumInputs(const TfLiteNode* node) { return node->inputs_size; }
inline int NumOutputs(const TfLiteNode* node) { return node->outputs_size; }
inline bool IsConstantTensor(const TfLiteTensor*) { return true; }
inline const TfLiteTensor* GetInput(const TfLiteContext*, const TfLiteNode*, int) { return nullptr; }
inline TfLiteTensor* GetOutput(TfLiteContext*, const TfLiteNode*, int) { return nullptr; }
inline int NumDimensions(const TfLiteTensor* t) { return t->dims->size; }
inline int SizeOfDimension(const TfLiteTensor* t, int dim) { return t->dims->data[dim]; }
inline int NumElements(const TfLiteTensor* t) {
  int count = 1;
  for (int i = 0; i < t->dims->size; ++i) count *= t->dims->data[i];
  return count;
}
inline bool HaveSameShapes(const TfLiteTensor* input1, const TfLiteTensor* input2) {
  if (input1->dims->size != input2->dims->size) return false;
  for (int i = 0; i < input1->dims->size; ++i) {
    if (input1->dims->data[i] != input2->dims->data[i]) return false;
  }
  return true;
}
inline int TfLiteTypeGetSize(TfLiteType type) {
  switch (type) {
    case kTfLiteInt8:
    case kTfLiteBool:
      return 1;
    case kTfLiteInt16:
      return 2;
    case kTfLiteInt64:
      return 8;
    default:
      return 4;  // float32, int32
  }
}
}  // namespace tflite
#endif
