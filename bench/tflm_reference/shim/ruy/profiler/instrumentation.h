/* Shim (firmware-gen's own code): TFLM builds without ruy's profiler, whose ScopeLabel is then a no-op. */
#ifndef FG_SHIM_RUY_PROFILER_INSTRUMENTATION_H
#define FG_SHIM_RUY_PROFILER_INSTRUMENTATION_H
namespace ruy {
namespace profiler {
struct ScopeLabel {
  explicit ScopeLabel(const char *) {}
};
}  // namespace profiler
}  // namespace ruy
#endif
