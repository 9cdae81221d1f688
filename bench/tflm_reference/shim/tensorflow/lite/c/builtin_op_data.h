/* Shim (firmware-gen's own code): the builtin option structs the compiled micro kernels read from
 * node->builtin_data, with TFLite's member names. */
#ifndef FG_SHIM_TENSORFLOW_LITE_C_BUILTIN_OP_DATA_H
#define FG_SHIM_TENSORFLOW_LITE_C_BUILTIN_OP_DATA_H
typedef struct {
  int axis;
  int batch_dims;
} TfLiteGatherParams;
typedef enum {
  kTfLiteMirrorPaddingUnknown = 0,
  kTfLiteMirrorPaddingReflect,
  kTfLiteMirrorPaddingSymmetric,
} TfLiteMirrorPaddingMode;
typedef struct {
  TfLiteMirrorPaddingMode mode;
} TfLiteMirrorPaddingParams;
typedef struct {
  int values_count;
  int axis;
} TfLitePackParams;
typedef struct {
  int num;
  int axis;
} TfLiteUnpackParams;
#endif
