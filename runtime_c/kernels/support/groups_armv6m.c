/* The outputs of one window of the Armv6-M convolution and fully-connected variants, every group of eight channels
 * in one call (fg/isa/armv6m.h): each group's dot loop, its eight sums to the stack, then the output stage over
 * them, with no call or register save between groups. For layers the Thumb-1 output stage serves whole. */
#include "fg/isa/armv6m.h"
#include "fg/isa/armv6m_asm.h"

#if defined(__ARM_ARCH_6M__)
/* The run on the stack at [sp], the group's sums at [sp + 4]; the run's group, channel and output advance. */
#define FG_GROUPS(dot, store, requantize)                                   \
    ".syntax unified\n\t"                                                  \
    FG_SAVE_ALL                                                            \
    "sub sp, sp, #32\n\t"                                                  \
    "push {r0}\n\t"                                                        \
    "20:\n\t"                                                              \
    "ldr r3, [sp]\n\t"                                                     \
    "ldm r3!, {r0, r1, r2, r4}\n\t"     /* x, taps, group, start */       \
    dot                                                                    \
    "ldr r3, [sp]\n\tstr r2, [r3, #8]\n\t"                                 \
    "add r3, sp, #4\n\t"                                                   \
    store                                                                  \
    "ldr r5, [sp]\n\tadds r5, #16\n\t"                                     \
    "ldm r5!, {r1, r2, r4, r6, r7}\n\t" /* channel, output, end, low, high */ \
    "mov r9, r6\n\tmov r10, r7\n\t"                                        \
    "movs r3, r2\n\tadds r3, #8\n\tcmp r3, r4\n\tble 21f\n\tmovs r3, r4\n\t21:\n\t" \
    "mov r11, r3\n\t"                                                      \
    "add r0, sp, #4\n\t"                                                   \
    requantize                                                             \
    "ldr r5, [sp]\n\tstr r1, [r5, #16]\n\tstr r2, [r5, #20]\n\t"           \
    "ldr r4, [r5, #24]\n\tcmp r2, r4\n\tbeq 22f\n\tb 20b\n\t"              \
    "22:\n\t"                                                              \
    "add sp, sp, #36\n\t"                                                  \
    FG_RESTORE_ALL

__attribute__((naked)) void fg_armv6m_groups_s8(__attribute__((unused)) fg_armv6m_run *run) {
    __asm__ volatile(FG_GROUPS(FG_DOT8_S8, FG_STORE8, FG_REQUANTIZE));
}

__attribute__((naked)) void fg_armv6m_groups_s4(__attribute__((unused)) fg_armv6m_run *run) {
    __asm__ volatile(FG_GROUPS(FG_DOT8_S4, FG_STORE8_S4, FG_REQUANTIZE));
}

__attribute__((naked)) void fg_armv6m_groups_positive_s8(__attribute__((unused)) fg_armv6m_run *run) {
    __asm__ volatile(FG_GROUPS(FG_DOT8_S8, FG_STORE8, FG_REQUANTIZE_POSITIVE));
}

__attribute__((naked)) void fg_armv6m_groups_positive_s4(__attribute__((unused)) fg_armv6m_run *run) {
    __asm__ volatile(FG_GROUPS(FG_DOT8_S4, FG_STORE8_S4, FG_REQUANTIZE_POSITIVE));
}
#else
/* The same through the host build's C loops. */
static void fg_armv6m_groups(fg_armv6m_run *run, int int4) {
    const fg_armv6m_layer layer = {1, 0, run->low, run->high};
    const int32_t group_bytes = FG_ARMV6M_GROUP * (int32_t)sizeof(int32_t) +
                                (int4 ? FG_ARMV6M_GROUP / 2 : FG_ARMV6M_GROUP) * run->taps;
    while (run->output != run->end) {
        int32_t acc[FG_ARMV6M_GROUP] = {run->start};
        const int32_t left = (int32_t)(run->end - run->output);
        const int32_t count = left < FG_ARMV6M_GROUP ? left : FG_ARMV6M_GROUP;
        (int4 ? fg_armv6m_dot8_s4 : fg_armv6m_dot8)(run->x, run->taps, run->group, acc);
        fg_armv6m_requantize_s8(acc, count, run->channel, run->output, &layer);
        run->group += group_bytes;
        run->channel += count;
        run->output += count;
    }
}

void fg_armv6m_groups_s8(fg_armv6m_run *run) {
    fg_armv6m_groups(run, 0);
}

void fg_armv6m_groups_s4(fg_armv6m_run *run) {
    fg_armv6m_groups(run, 1);
}

void fg_armv6m_groups_positive_s8(fg_armv6m_run *run) {
    fg_armv6m_groups(run, 0);
}

void fg_armv6m_groups_positive_s4(fg_armv6m_run *run) {
    fg_armv6m_groups(run, 1);
}
#endif
