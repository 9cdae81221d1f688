/* CAST int8_t -> int32_t (see fg/cast.h). */
#include "fg/cast.h"

FG_CAST_KERNEL(fg_cast_s8_s32, int8_t, int32_t)
