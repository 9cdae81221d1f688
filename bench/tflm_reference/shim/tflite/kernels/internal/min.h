/* Shim (firmware-gen's own code): TfLiteMin is std::min. */
#ifndef FG_SHIM_TFLITE_MIN_H
#define FG_SHIM_TFLITE_MIN_H
#include <algorithm>
namespace tflite {
template <class T>
inline T TfLiteMin(const T& x, const T& y) { return std::min(x, y); }
}  // namespace tflite
#endif
