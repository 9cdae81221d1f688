/* Shim (firmware-gen's own code) for TFLite's portable_tensor_utils.h, which batch_matmul.h includes for the one
 * function its hybrid (float-output) BatchMatMul calls; declared only, never defined nor called by the bench. */
#ifndef FG_SHIM_TFLITE_PORTABLE_TENSOR_UTILS_H
#define FG_SHIM_TFLITE_PORTABLE_TENSOR_UTILS_H
#include <cstdint>
namespace tflite {
namespace tensor_utils {
void ReductionSumVector(const int8_t* input_vector, int32_t* output_vector, int output_size,
                        int reduction_size);
}  // namespace tensor_utils
}  // namespace tflite
#endif
