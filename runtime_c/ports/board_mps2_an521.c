/* Arm MPS2+ AN521 set-up. Of the SSE-200's two Cortex-M33, only CPU 1 has the FPU and the DSP extension (the AN521
 * FPGA image, and QEMU's mps2-an521 after it): CPU 0, which boots, starts CPU 1 at the same vector table and
 * sleeps for good; CPU 1 comes through reset again and runs the firmware. Nothing but registers is touched: this
 * runs before .data and .bss are set up, and both CPUs share the one stack. */
#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define CPUID REG32(0x5001F000u)             /* the SSE-200's CPU_IDENTITY: the number of the CPU that reads it */
#define SYSCTL_INITSVTOR1 REG32(0x50021114u) /* CPU 1's Secure vector table at reset */
#define SYSCTL_CPUWAIT REG32(0x50021118u)    /* bit n holds CPU n in reset */
#define VTOR REG32(0xE000ED08u)
#define CPU1_WAIT (1u << 1)

void fg_board_init(void) {
    if (CPUID != 0u) {
        return;
    }
    SYSCTL_INITSVTOR1 = VTOR;
    SYSCTL_CPUWAIT &= ~CPU1_WAIT;
    for (;;) {
        __asm__ volatile("wfi"); /* no interrupt is enabled on CPU 0: it never wakes, and uses no stack here */
    }
}
