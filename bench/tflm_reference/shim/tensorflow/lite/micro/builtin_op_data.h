/* Shim (firmware-gen's own code): newer TFLM kernels (split.cc) include the builtin option structs from here. */
#include "tensorflow/lite/c/builtin_op_data.h"
