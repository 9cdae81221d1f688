/* Reset and exception entry for Armv6-M, Armv7-M and Armv8-M Mainline cores: the vector table, C runtime set-up
 * (.data copy, .bss and pool zeroing, FPU/MVE enable) and one fault entry that hands the stacked registers
 * to fg_fault_report(). The linker script (generated from the board file) defines the __fg_* symbols. */
#include <string.h>

#include "fg_port.h"

extern uint8_t __fg_data_load[], __fg_data_start[], __fg_data_end[];
extern uint8_t __fg_bss_start[], __fg_bss_end[];
extern uint8_t __fg_pool_start[], __fg_pool_end[];
extern uint8_t __fg_stack_bottom[], __fg_stack_top[], __fg_thread_stack_top[];

int main(void);
void Reset_Handler(void);
void fg_reset(void) __attribute__((noreturn, used));
void Fault_Handler(void);
void fg_fault_entry(const fg_exception_frame *frame, uint32_t exc_return) __attribute__((noreturn, used));
void SysTick_Handler(void);

#define CPACR (*(volatile uint32_t *)0xE000ED88u)

/* The program runs on the process stack (PSP, the bulk of .stack) and exceptions on the main stack (MSP, its top
 * __fg_handler_stack_bytes): when the program overflows its stack the fault handler still has a valid one and can
 * report. On Armv8-M the stack limit register makes the overflow itself a precise fault. */
__attribute__((naked)) void Reset_Handler(void) {
    __asm__ volatile(
        "ldr r0, =__fg_thread_stack_top\n\t"
        "msr psp, r0\n\t"
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
        "ldr r0, =__fg_stack_bottom\n\t"
        "msr psplim, r0\n\t"
#endif
        "movs r0, #2\n\t" /* CONTROL.SPSEL: thread mode uses PSP */
        "msr control, r0\n\t"
        "isb\n\t"
        "b fg_reset\n\t");
}

#define FG_STACK_PAINT 0xFFFFFFFFu /* erased flash: a stale word read as an address or return faults */
#define FG_STACK_PAINT_CLEARANCE 64u /* bytes below the painter's own stack pointer left alone: its frame */

/* Every word of the program's stack below the caller's frame gets the pattern fg_stack_used() looks for. */
static void __attribute__((noinline)) paint_stack(void) {
    uint8_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *word = (uint32_t *)__fg_stack_bottom; (uint8_t *)word < sp - FG_STACK_PAINT_CLEARANCE; ++word) {
        *(volatile uint32_t *)word = FG_STACK_PAINT;
    }
}

uint32_t fg_stack_used(void) {
    const uint32_t *word = (const uint32_t *)__fg_stack_bottom;
    while ((const uint8_t *)word < __fg_thread_stack_top && *word == FG_STACK_PAINT) {
        ++word;
    }
    return (uint32_t)(__fg_thread_stack_top - (const uint8_t *)word);
}

uint32_t fg_stack_reserved(void) {
    return (uint32_t)(__fg_thread_stack_top - __fg_stack_bottom);
}

/* QEMU machines need no set-up; a real board's board_<name>.c replaces this. */
__attribute__((weak)) void fg_board_init(void) {}

void fg_reset(void) {
    fg_board_init();
    paint_stack();
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    CPACR |= 0xFu << 20; /* CP10 and CP11 full access: FPU (and MVE) instructions */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    memcpy(__fg_data_start, __fg_data_load, (size_t)(__fg_data_end - __fg_data_start));
    memset(__fg_bss_start, 0, (size_t)(__fg_bss_end - __fg_bss_start));
    memset(__fg_pool_start, 0, (size_t)(__fg_pool_end - __fg_pool_start));
    fg_exit(main());
}

/* Every exception but reset and SysTick is unexpected: report it, with the stack the core pushed the registers
 * on (MSP or PSP, from EXC_RETURN bit 2) and EXC_RETURN. */
__attribute__((naked)) void Fault_Handler(void) {
#if defined(__ARM_ARCH_6M__)
    /* Thumb-1: no TST with an immediate, no IT block, and B's reach is 2 KiB. */
    __asm__ volatile(
        "mov r1, lr\n\t"
        "movs r0, #4\n\t"
        "tst r0, r1\n\t"
        "bne 1f\n\t"
        "mrs r0, msp\n\t"
        "b 2f\n\t"
        "1:\n\t"
        "mrs r0, psp\n\t"
        "2:\n\t"
        "ldr r2, =fg_fault_entry\n\t"
        "bx r2\n\t"
        ".ltorg\n\t");
#else
    __asm__ volatile(
        "tst lr, #4\n\t"
        "ite eq\n\t"
        "mrseq r0, msp\n\t"
        "mrsne r0, psp\n\t"
        "mov r1, lr\n\t"
        "b fg_fault_entry\n\t");
#endif
}

/* The stacked registers are only readable when they lie on the stack (else the stack overflowed: NULL). */
void fg_fault_entry(const fg_exception_frame *frame, uint32_t exc_return) {
    const uint8_t *at = (const uint8_t *)frame;
    int on_stack = at >= __fg_stack_bottom && at + sizeof *frame <= __fg_stack_top;
    fg_fault_report(on_stack ? frame : NULL, exc_return);
}

typedef void (*fg_vector)(void);

__attribute__((section(".vectors"), used)) static const fg_vector fg_vector_table[16] = {
    (fg_vector)(uintptr_t)__fg_stack_top, /* initial main stack pointer */
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    Fault_Handler, /* SecureFault (Armv8-M) */
    0,
    0,
    0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    SysTick_Handler,
};
