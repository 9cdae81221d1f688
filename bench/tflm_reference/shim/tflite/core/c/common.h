/* Shim (firmware-gen's own code) for TFLite's C API header, which portable_tensor.h, tensor_ctypes.h and the
 * micro kernel .cc files the bench compiles include: only the members their code names, enough to compile them.
 * The bench passes plain arrays to the kernels' functions; the Prepare functions these files also hold are never
 * called (their parameters are set as they would set them, by the case's setup). */
#ifndef FG_SHIM_TFLITE_CORE_C_COMMON_H
#define FG_SHIM_TFLITE_CORE_C_COMMON_H
#include <stddef.h>
#include <stdint.h>
typedef enum { kTfLiteOk = 0, kTfLiteError = 1 } TfLiteStatus;
typedef enum {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteInt16 = 7,
  kTfLiteInt8 = 9,
} TfLiteType;
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
  TfLiteType type;
  TfLitePtrUnion data;
  TfLiteQuantizationParams params;
} TfLiteTensor;
typedef struct {
  void* user_data;
} TfLiteNode;
typedef struct {
  TfLiteTensor* tensors;
} TfLiteContext;
#endif
