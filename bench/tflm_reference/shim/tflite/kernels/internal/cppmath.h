/* Shim (firmware-gen's own code): TfLiteRound and friends are the std:: functions on a libm target. */
#ifndef FG_SHIM_TFLITE_CPPMATH_H
#define FG_SHIM_TFLITE_CPPMATH_H
#include <cmath>
namespace tflite {
template <class T>
inline T TfLiteRound(const T x) { return std::round(x); }
template <class T>
inline T TfLiteExpm1(const T x) { return std::expm1(x); }
}  // namespace tflite
#endif
