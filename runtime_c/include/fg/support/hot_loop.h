/* FG_HOT_LOOP: the firmware is built with -Os, whose register allocation spills the pointers of the unrolled inner
 * loops to the stack (twice the instructions) and whose loops test at the top and branch back; the hot loops ask GCC
 * for -O2 instead. */
#ifndef FG_HOT_LOOP_H
#define FG_HOT_LOOP_H

#if defined(__GNUC__) && !defined(__clang__)
#define FG_HOT_LOOP __attribute__((optimize("O2")))
#else
#define FG_HOT_LOOP
#endif

#endif /* FG_HOT_LOOP_H */
