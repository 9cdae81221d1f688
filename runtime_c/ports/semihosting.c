/* End of run through Arm semihosting. SYS_EXIT_EXTENDED (0x20) carries an exit code, plain SYS_EXIT does not.
 * Without a debugger or QEMU semihosting the BKPT faults: real-board builds define FG_NO_SEMIHOSTING and the
 * firmware drains its UART and resets the chip (SYSRESETREQ), so the next `firmware-gen run` finds it waiting for
 * a HELLO_REQUEST again without re-flashing. Under QEMU -no-reboot the same reset ends QEMU. */
#include "fg_port.h"

#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define AIRCR (*(volatile uint32_t *)0xE000ED0Cu)
#define AIRCR_VECTKEY (0x05FAu << 16)
#define AIRCR_SYSRESETREQ (1u << 2)

void fg_exit(int code) {
#ifdef FG_NO_SEMIHOSTING
    (void)code;
    fg_uart_flush();
    __asm__ volatile("dsb" ::: "memory");
    AIRCR = AIRCR_VECTKEY | AIRCR_SYSRESETREQ;
    __asm__ volatile("dsb" ::: "memory");
#else
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    register uint32_t operation __asm__("r0") = SYS_EXIT_EXTENDED;
    register uint32_t argument __asm__("r1") = (uint32_t)block;
    __asm__ volatile("bkpt 0xab" : "+r"(operation) : "r"(argument) : "memory");
#endif
    for (;;) {
        __asm__ volatile("wfi");
    }
}
