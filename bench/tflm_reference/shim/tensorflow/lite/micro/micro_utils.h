/* Shim (firmware-gen's own code) for TFLM's micro_utils.h: ElementCount as TFLM defines it (the product of the
 * dims) and FloatToQuantizedType, named only by a Prepare the bench never calls (declared, never defined: the
 * case computes its result in Python). */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_UTILS_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_UTILS_H
#include "tflite/core/c/common.h"
namespace tflite {
inline int ElementCount(const TfLiteIntArray& dims) {
  int result = 1;
  for (int i = 0; i < dims.size; ++i) result *= dims.data[i];
  return result;
}
template <typename T>
T FloatToQuantizedType(float value, float scale, int zero_point);
}  // namespace tflite
#endif
