/* Shim (firmware-gen's own code): the older cast.cc takes MicroPrintf from micro_error_reporter.h. */
#ifndef FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_ERROR_REPORTER_H
#define FG_SHIM_TENSORFLOW_LITE_MICRO_MICRO_ERROR_REPORTER_H
#include "tensorflow/lite/micro/micro_log.h"
#endif
