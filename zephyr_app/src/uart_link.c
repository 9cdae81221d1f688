/* firmware-gen on Zephyr, serial-protocol build (FIRMWARE_GEN_LINK=uart, what `firmware-gen run --zephyr` builds):
 * the bare-metal profiling firmware (runtime_c/firmware/main.c, compiled with main renamed fg_firmware_main) on
 * Zephyr, through this port of runtime_c/ports/fg_port.h. The protocol owns the console's UART (uart_link.conf
 * turns the console, printk and the boot banner off) through Zephyr's polling UART API; steps are timed with the
 * DWT cycle counter where it counts (real silicon), else with k_cycle_get_32(); the run ends through semihosting
 * (runtime_c/ports/semihosting.c), as on bare metal. */
#include <stdint.h>
#include <string.h>
#include <zephyr/device.h>
#include <zephyr/devicetree.h>
#include <zephyr/drivers/uart.h>
#include <zephyr/fatal.h>
#include <zephyr/kernel.h>

#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define DEMCR REG32(0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL REG32(0xE0001000u)
#define DWT_CYCCNT REG32(0xE0001004u)
#define DWT_CTRL_CYCCNTENA (1u << 0)

static const struct device *const uart = DEVICE_DT_GET(DT_CHOSEN(zephyr_console));
static int counter_kind;
static uint32_t last_count; /* the 32-bit counter extended to 64 bits on each read */
static uint64_t high_count;

int fg_firmware_main(void);

/* The pool's bounds, from the model module's linker snippet: its NOLOAD section is not zeroed by Zephyr's boot, so
 * it is cleared here, as the bare-metal startup does. */
extern uint8_t __fg_pool_start[], __fg_pool_end[];

int main(void) {
    memset(__fg_pool_start, 0, (size_t)(__fg_pool_end - __fg_pool_start));
    fg_exit(fg_firmware_main());
}

void fg_board_init(void) {}

void fg_uart_init(void) {} /* Zephyr's driver set the UART up at boot */

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        uart_poll_out(uart, p[i]);
    }
}

uint8_t fg_uart_read_byte(void) {
    unsigned char byte;
    while (uart_poll_in(uart, &byte) != 0) {
    }
    return byte;
}

void fg_uart_flush(void) {} /* uart_poll_out returns once the UART has taken the byte */

static int dwt_counts(void) {
    DEMCR |= DEMCR_TRCENA;
    DWT_CYCCNT = 0;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    uint32_t before = DWT_CYCCNT;
    for (volatile int i = 0; i < 4; ++i) {
    }
    return DWT_CYCCNT != before;
}

static uint32_t count32(void) { return counter_kind == FG_COUNTER_DWT ? DWT_CYCCNT : k_cycle_get_32(); }

int fg_cycles_init(void) {
    counter_kind = dwt_counts() ? FG_COUNTER_DWT : FG_COUNTER_ZEPHYR_CYCLES;
    fg_cycles_restart();
    return counter_kind;
}

/* Zephyr owns SysTick, so its phase cannot be reset as on bare metal: a count may differ by one tick between runs. */
void fg_cycles_restart(void) {
    last_count = count32();
    high_count = 0;
}

uint64_t fg_cycles_now(void) {
    uint32_t now = count32() - last_count;
    uint32_t low = (uint32_t)high_count;
    if (now < low) {
        high_count += (uint64_t)1 << 32;
    }
    high_count = (high_count & ~(uint64_t)0xFFFFFFFFu) | now;
    return high_count;
}

/* A fault (or a stack overflow Zephyr caught) is reported with the step that was running, as on bare metal. */
/* The main thread's stack, which runs the model: Zephyr paints it when the thread is created (CONFIG_INIT_STACKS)
 * and tells how much of it was never touched. */
uint32_t fg_stack_used(void) {
    size_t unused = 0;
    if (k_thread_stack_space_get(k_current_get(), &unused) != 0) {
        return 0;
    }
    return (uint32_t)(k_current_get()->stack_info.size - unused);
}

uint32_t fg_stack_reserved(void) { return (uint32_t)k_current_get()->stack_info.size; }

void k_sys_fatal_error_handler(unsigned int reason, const z_arch_esf_t *esf) {
    (void)reason;
    fg_fault_report(esf != NULL ? (const fg_exception_frame *)&esf->basic : NULL, 0);
}
