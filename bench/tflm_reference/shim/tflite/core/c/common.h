/* Shim (firmware-gen's own code) for TFLite's C API header, which portable_tensor.h and tensor_ctypes.h include:
 * only the members their inline code names, enough to compile them. The bench passes plain arrays, never these. */
#ifndef FG_SHIM_TFLITE_CORE_C_COMMON_H
#define FG_SHIM_TFLITE_CORE_C_COMMON_H
#include <stdint.h>
typedef struct {
  int size;
  int data[1];
} TfLiteIntArray;
typedef struct {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;
typedef union {
  void* raw;
  const void* raw_const;
} TfLitePtrUnion;
typedef struct {
  TfLitePtrUnion data;
  TfLiteQuantizationParams params;
} TfLiteTensor;
typedef struct {
  TfLiteTensor* tensors;
} TfLiteContext;
#endif
