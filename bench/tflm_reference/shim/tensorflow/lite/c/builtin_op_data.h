/* Shim (firmware-gen's own code): the builtin option structs; none is named by the code the bench compiles. */
#ifndef FG_SHIM_TENSORFLOW_LITE_C_BUILTIN_OP_DATA_H
#define FG_SHIM_TENSORFLOW_LITE_C_BUILTIN_OP_DATA_H
#endif
