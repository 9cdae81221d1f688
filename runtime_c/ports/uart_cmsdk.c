/* Arm CMSDK APB UART (MPS2 and MPS3 FPGA images). Polled, no interrupts. */
#include "fg_port.h"

#ifndef FG_UART_BASE
#error "FG_UART_BASE must be defined (the board's UART base address)"
#endif

#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#define UART_DATA UART_REG(0x000)
#define UART_STATE UART_REG(0x004)
#define UART_CTRL UART_REG(0x008)
#define UART_BAUDDIV UART_REG(0x010)
#define STATE_TX_FULL (1u << 0)
#define STATE_RX_FULL (1u << 1)
#define CTRL_TX_EN (1u << 0)
#define CTRL_RX_EN (1u << 1)

void fg_uart_init(void) {
    UART_BAUDDIV = 16; /* the smallest valid divisor; QEMU does not pace the line */
    UART_CTRL = CTRL_TX_EN | CTRL_RX_EN;
}

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        while (UART_STATE & STATE_TX_FULL) {
        }
        UART_DATA = p[i];
    }
}

uint8_t fg_uart_read_byte(void) {
    while (!(UART_STATE & STATE_RX_FULL)) {
    }
    return (uint8_t)UART_DATA;
}

/* The CMSDK UART has no "shift register empty" flag: once the one-byte buffer is free, wait for one character. */
void fg_uart_flush(void) {
    while (UART_STATE & STATE_TX_FULL) {
    }
    for (volatile uint32_t i = 0; i < 16u * UART_BAUDDIV; ++i) {
    }
}
