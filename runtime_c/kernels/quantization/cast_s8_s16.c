/* CAST int8_t -> int16_t (see fg/cast.h). */
#include "fg/cast.h"

FG_CAST_KERNEL(fg_cast_s8_s16, int8_t, int16_t)
