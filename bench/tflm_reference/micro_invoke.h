/* For the cases timed through a TFLM micro kernel's registered invoke (firmware-gen's own code): the scratch
 * buffers a kernel's Prepare would have requested in the arena, handed out by index. */
#ifndef FG_BENCH_MICRO_INVOKE_H
#define FG_BENCH_MICRO_INVOKE_H
#include <cstdint>
#include "tensorflow/lite/c/common.h"

inline void* BenchScratchBuffer(TfLiteContext*, int buffer_index) {
  alignas(8) static uint8_t arena[4][64];
  return arena[buffer_index];
}

#endif
