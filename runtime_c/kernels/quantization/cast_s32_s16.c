/* CAST int32_t -> int16_t (see fg/cast.h). */
#include "fg/cast.h"

FG_CAST_KERNEL(fg_cast_s32_s16, int32_t, int16_t)
