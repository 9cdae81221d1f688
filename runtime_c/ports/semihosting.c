/* End of run through Arm semihosting. SYS_EXIT_EXTENDED (0x20) carries an exit code, plain SYS_EXIT does not.
 * Without a debugger or QEMU semihosting the BKPT faults: a real-board build needs another end-of-run signal. */
#include "fg_port.h"

#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

void fg_exit(int code) {
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    register uint32_t operation __asm__("r0") = SYS_EXIT_EXTENDED;
    register uint32_t argument __asm__("r1") = (uint32_t)block;
    __asm__ volatile("bkpt 0xab" : "+r"(operation) : "r"(argument) : "memory");
    for (;;) {
        __asm__ volatile("wfi");
    }
}
