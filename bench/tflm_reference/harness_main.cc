/* The TFLM side of bench/reference_kernels.py (firmware-gen's own code): runs every case listed by the generated
 * bench_cases.inc once (each case, in its own translation unit as each TFLM kernel is: a TFLM reference kernel
 * called on the benchmark's tensors, its parameters set before timing), timed with the board port's counter, and
 * prints per case "case <n> <ticks> <fnv1a of output>" on the UART, then "done". */
extern "C" {
#include "fg_port.h"
}

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bench_case.h"
#include "bench_cases.inc"

extern "C" void fg_fault_report(const fg_exception_frame* frame, uint32_t exc_return) {
  (void)frame;
  (void)exc_return;
  fg_exit(FG_EXIT_FAULT);
}

namespace {

void put(const char* text) { fg_uart_write(text, strlen(text)); }

void put_decimal(uint64_t value) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + value % 10u);
    value /= 10u;
  } while (value != 0u);
  while (count > 0) fg_uart_write(&digits[--count], 1);
}

uint32_t fnv1a(const void* data, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 16777619u;
  return hash;
}

}  // namespace

int main(void) {
  fg_uart_init();
  fg_cycles_init();
  for (size_t n = 0; n < sizeof(kCases) / sizeof(kCases[0]); ++n) {
    const BenchCase& c = *kCases[n];
    c.setup();
    fg_cycles_restart();
    const uint64_t start = fg_cycles_now();
    c.call();
    const uint64_t ticks = fg_cycles_now() - start;
    put("case ");
    put_decimal(n);
    put(" ");
    put_decimal(ticks);
    put(" ");
    put_decimal(fnv1a(c.output, c.output_bytes));
    put("\n");
  }
  put("done\n");
  fg_uart_flush();
  return FG_EXIT_OK;
}
