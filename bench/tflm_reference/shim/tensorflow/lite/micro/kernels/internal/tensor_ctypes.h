/* Shim (firmware-gen's own code): newer TFLM kernels (split.cc) include tensor_ctypes.h from micro/kernels/internal/;
 * the older path holds the same helpers. */
#include "tensorflow/lite/kernels/internal/tensor_ctypes.h"
