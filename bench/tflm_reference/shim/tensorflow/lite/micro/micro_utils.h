/* Shim (firmware-gen's own code) for TFLM's micro_utils.h: FloatToQuantizedType, named only by a Prepare the
 * bench never calls (declared, never defined: the case computes its result in Python). */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_UTILS_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_UTILS_H
namespace tflite {
template <typename T>
T FloatToQuantizedType(float value, float scale, int zero_point);
}  // namespace tflite
#endif
