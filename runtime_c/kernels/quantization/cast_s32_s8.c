/* CAST int32_t -> int8_t (see fg/cast.h). */
#include "fg/cast.h"

FG_CAST_KERNEL(fg_cast_s32_s8, int32_t, int8_t)
