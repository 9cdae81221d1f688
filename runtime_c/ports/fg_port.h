/* The board port: what the firmware needs from a Cortex-M board, behind one small interface.
 *
 * startup.c (vector table, reset, fault entry), one UART driver (uart_pl011.c or uart_cmsdk.c, base address
 * from -DFG_UART_BASE), cycles.c (DWT CYCCNT when it counts, else SysTick extended to 64 bits) and
 * semihosting.c (end of run under QEMU). No libc beyond memcpy/memset, no printf. */
#ifndef FG_PORT_H
#define FG_PORT_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes of the firmware (QEMU exits with them; firmware_gen/serial_link.py mirrors them). */
#define FG_EXIT_OK 0
#define FG_EXIT_MODEL_ERROR 10    /* fg_model_invoke() returned non-zero */
#define FG_EXIT_PROTOCOL_ERROR 11 /* a corrupted or unexpected frame from the host */
#define FG_EXIT_FAULT 12          /* HardFault (or another fault escalated to it) */

/* Board set-up that must come first (clocks, pins, watchdog): runtime_c/ports/board_<name>.c on real boards,
 * nothing on QEMU machines. Called from reset before .data and .bss are set up: it must not use them. */
void fg_board_init(void);

void fg_uart_init(void);
void fg_uart_write(const void *data, size_t bytes);
uint8_t fg_uart_read_byte(void); /* blocks until a byte arrives */
void fg_uart_flush(void);        /* returns once every byte written has left the UART */

/* Which counter fg_cycles_now() reads. */
#define FG_COUNTER_DWT 1     /* core clock cycles */
#define FG_COUNTER_SYSTICK 2 /* SysTick ticks (processor clock source) */
#define FG_COUNTER_ZEPHYR_CYCLES 3 /* Zephyr's k_cycle_get_32() cycles (zephyr_app/) */

/* Starts the counter (DWT if it counts, else SysTick) and returns FG_COUNTER_*. */
int fg_cycles_init(void);
/* Restarts the count from zero: under QEMU -icount this aligns SysTick's phase with the code being measured,
 * which makes the counts repeatable. */
void fg_cycles_restart(void);
uint64_t fg_cycles_now(void);

/* Ends the run with a code: semihosting SYS_EXIT_EXTENDED (QEMU with -semihosting-config enable=on). Real-board
 * builds (FG_NO_SEMIHOSTING) drain the UART and reset the chip instead, ready for the next session. */
void fg_exit(int code) __attribute__((noreturn));

/* The program's stack (startup.c): painted with a pattern at reset, fg_stack_used() is its high-water mark since
 * then (the bytes below its top no longer holding the pattern), fg_stack_reserved() its size. */
uint32_t fg_stack_used(void);
uint32_t fg_stack_reserved(void);

/* The registers the core stacked on a fault, as the fault entry passes them to fg_fault_report. */
typedef struct {
    uint32_t r0, r1, r2, r3, r12, lr, pc, xpsr;
} fg_exception_frame;

/* Provided by the program: called from HardFault with the stacked registers (NULL when they are not on the
 * stack: it overflowed), on a fresh stack; must not return. */
void fg_fault_report(const fg_exception_frame *frame, uint32_t exc_return) __attribute__((noreturn));

#endif /* FG_PORT_H */
