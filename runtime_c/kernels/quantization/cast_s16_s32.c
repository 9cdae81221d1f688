/* CAST int16_t -> int32_t (see fg/cast.h). */
#include "fg/cast.h"

FG_CAST_KERNEL(fg_cast_s16_s32, int16_t, int32_t)
