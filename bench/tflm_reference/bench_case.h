/* One case of the TFLM side of bench/reference_kernels.py (firmware-gen's own code): its parameters are set by
 * setup (TFLM's Prepare), the timed call is the reference kernel TFLM's Eval calls, and output is what it wrote. */
#ifndef FG_BENCH_CASE_H
#define FG_BENCH_CASE_H

#include <cstddef>

struct BenchCase {
  void (*setup)();
  void (*call)();
  const void* output;
  size_t output_bytes;
};

#endif
