/* Shim (firmware-gen's own code): elu.cc includes process_broadcast_shapes.h but names nothing of it. */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_INTERNAL_REFERENCE_PROCESS_BROADCAST_SHAPES_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_KERNELS_INTERNAL_REFERENCE_PROCESS_BROADCAST_SHAPES_H
#endif
