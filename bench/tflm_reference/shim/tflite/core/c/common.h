/* Shim (firmware-gen's own code) for TFLite's C API header, which portable_tensor.h, tensor_ctypes.h and the
 * micro kernel .cc files the bench compiles include: only the members their code names. A case whose Eval is
 * invoked through its registration describes its tensors as TfLiteEvalTensor (data, dims, type) and hands them
 * over in its TfLiteNode; the Prepare functions (TfLiteTensor, MicroContext) are never called, their parameters
 * are set by the case's setup. */
#ifndef FG_SHIM_TFLITE_CORE_C_COMMON_H
#define FG_SHIM_TFLITE_CORE_C_COMMON_H
#include <stddef.h>
#include <stdint.h>
typedef enum { kTfLiteOk = 0, kTfLiteError = 1 } TfLiteStatus;
typedef enum {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteInt64 = 4,
  kTfLiteBool = 6,
  kTfLiteInt16 = 7,
  kTfLiteInt8 = 9,
} TfLiteType;
typedef struct {
  int size;
  int data[1];
} TfLiteIntArray;
typedef struct {
  int size;
  float data[1];
} TfLiteFloatArray;
typedef struct {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;
typedef enum { kTfLiteNoQuantization = 0, kTfLiteAffineQuantization = 1 } TfLiteQuantizationType;
typedef struct {
  TfLiteQuantizationType type;
  void* params;
} TfLiteQuantization;
typedef struct {
  TfLiteFloatArray* scale;
  TfLiteIntArray* zero_point;
  int32_t quantized_dimension;
} TfLiteAffineQuantization;
typedef union {
  int8_t* int8;
  int16_t* i16;
  int32_t* i32;
  int64_t* i64;
  void* raw;
  const void* raw_const;
} TfLitePtrUnion;
typedef struct {
  TfLiteType type;
  TfLitePtrUnion data;
  TfLiteIntArray* dims;
  TfLiteQuantizationParams params;
  TfLiteQuantization quantization;
} TfLiteTensor;
typedef struct {
  TfLitePtrUnion data;
  TfLiteIntArray* dims;
  TfLiteType type;
} TfLiteEvalTensor;
typedef struct {
  TfLiteEvalTensor* const* inputs;
  int inputs_size;
  TfLiteEvalTensor* const* outputs;
  int outputs_size;
  void* user_data;
  void* builtin_data;
} TfLiteNode;
typedef struct TfLiteContext {
  TfLiteTensor* tensors;
  void* (*AllocatePersistentBuffer)(struct TfLiteContext* context, size_t bytes);
  TfLiteStatus (*RequestScratchBufferInArena)(struct TfLiteContext* context, size_t bytes, int* buffer_index);
  void* (*GetScratchBuffer)(struct TfLiteContext* context, int buffer_index);
} TfLiteContext;
typedef struct {
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const TfLiteContext* context, const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
} TfLiteRegistration;
#endif
