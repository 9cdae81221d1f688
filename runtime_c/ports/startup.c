/* Reset and exception entry for Armv7-M / Armv8-M Mainline cores: the vector table, C runtime set-up
 * (.data copy, .bss and pool zeroing, FPU/MVE enable) and one fault entry that hands the stacked registers
 * to fg_fault_report(). The linker script (generated from the board file) defines the __fg_* symbols. */
#include <string.h>

#include "fg_port.h"

extern uint8_t __fg_data_load[], __fg_data_start[], __fg_data_end[];
extern uint8_t __fg_bss_start[], __fg_bss_end[];
extern uint8_t __fg_pool_start[], __fg_pool_end[];
extern uint8_t __fg_stack_top[];

int main(void);
void Reset_Handler(void);
void Fault_Handler(void);
void SysTick_Handler(void);

#define CPACR (*(volatile uint32_t *)0xE000ED88u)

void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    CPACR |= 0xFu << 20; /* CP10 and CP11 full access: FPU (and MVE) instructions */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    memcpy(__fg_data_start, __fg_data_load, (size_t)(__fg_data_end - __fg_data_start));
    memset(__fg_bss_start, 0, (size_t)(__fg_bss_end - __fg_bss_start));
    memset(__fg_pool_start, 0, (size_t)(__fg_pool_end - __fg_pool_start));
    fg_exit(main());
}

/* Every exception but reset and SysTick is unexpected: report it. Passes the stack the core pushed the
 * registers on (MSP or PSP, from EXC_RETURN bit 2) and EXC_RETURN itself. */
__attribute__((naked)) void Fault_Handler(void) {
    __asm__ volatile(
        "tst lr, #4\n\t"
        "ite eq\n\t"
        "mrseq r0, msp\n\t"
        "mrsne r0, psp\n\t"
        "mov r1, lr\n\t"
        "b fg_fault_report\n\t");
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
