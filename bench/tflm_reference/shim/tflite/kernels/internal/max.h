/* Shim (firmware-gen's own code): TfLiteMax is std::max. */
#ifndef FG_SHIM_TFLITE_MAX_H
#define FG_SHIM_TFLITE_MAX_H
#include <algorithm>
namespace tflite {
template <class T>
inline T TfLiteMax(const T& x, const T& y) { return std::max(x, y); }
}  // namespace tflite
#endif
