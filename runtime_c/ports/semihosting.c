/* End of run through Arm semihosting. SYS_EXIT_EXTENDED (0x20) carries an exit code, plain SYS_EXIT does not.
 * Without a debugger or QEMU semihosting the BKPT faults: real-board builds define FG_NO_SEMIHOSTING and the
 * firmware just sleeps once it has sent its results. */
#include "fg_port.h"

#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

void fg_exit(int code) {
#ifdef FG_NO_SEMIHOSTING
    (void)code;
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
