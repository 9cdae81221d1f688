/* Shim (firmware-gen's own code) for TFLite's kernels/kernel_util.h: what the micro kernels' Prepare functions
 * name (never called; HaveSameShapes is declared, not defined). */
#ifndef FG_SHIM_TENSORFLOW_LITE_KERNELS_KERNEL_UTIL_H
#define FG_SHIM_TENSORFLOW_LITE_KERNELS_KERNEL_UTIL_H
#include "tflite/core/c/common.h"
namespace tflite {
inline int NumInputs(const TfLiteNode* node) { return node->inputs_size; }
inline int NumOutputs(const TfLiteNode* node) { return node->outputs_size; }
bool HaveSameShapes(const TfLiteTensor* input1, const TfLiteTensor* input2);
}  // namespace tflite
#endif
