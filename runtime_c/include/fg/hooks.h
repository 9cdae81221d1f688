/* Instrumentation points of the generated schedule.
 *
 * model.c brackets every step with FG_STEP_BEGIN / FG_STEP_END and announces each tensor it produces with
 * FG_TENSOR_READY. They cost nothing unless the build defines FG_ENABLE_HOOKS, in which case the program
 * provides the three functions: the profiler times steps, the host validator dumps tensors. */
#ifndef FG_HOOKS_H
#define FG_HOOKS_H

#include <stddef.h>

#ifdef FG_ENABLE_HOOKS
void fg_hook_step_begin(int step);
void fg_hook_step_end(int step);
void fg_hook_tensor_ready(int step, int tensor, const void *data, size_t bytes);
#define FG_STEP_BEGIN(step) fg_hook_step_begin(step)
#define FG_STEP_END(step) fg_hook_step_end(step)
#define FG_TENSOR_READY(step, tensor, data, bytes) fg_hook_tensor_ready(step, tensor, data, bytes)
#else
#define FG_STEP_BEGIN(step) ((void)0)
#define FG_STEP_END(step) ((void)0)
#define FG_TENSOR_READY(step, tensor, data, bytes) ((void)0)
#endif

#endif /* FG_HOOKS_H */
