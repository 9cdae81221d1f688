/* ARM PrimeCell PL011 UART (TI Stellaris LM3S6965 UART0). Polled, no interrupts. */
#include "fg_port.h"

#ifndef FG_UART_BASE
#error "FG_UART_BASE must be defined (the board's UART base address)"
#endif

#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#define UART_DR UART_REG(0x000)
#define UART_FR UART_REG(0x018)
#define UART_CR UART_REG(0x030)
#define FR_BUSY (1u << 3)
#define FR_RXFE (1u << 4)
#define FR_TXFF (1u << 5)
#define CR_UARTEN (1u << 0)
#define CR_TXE (1u << 8)
#define CR_RXE (1u << 9)

void fg_uart_init(void) { UART_CR = CR_UARTEN | CR_TXE | CR_RXE; }

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        while (UART_FR & FR_TXFF) {
        }
        UART_DR = p[i];
    }
}

uint8_t fg_uart_read_byte(void) {
    while (UART_FR & FR_RXFE) {
    }
    return (uint8_t)UART_DR;
}

void fg_uart_flush(void) {
    while (UART_FR & FR_BUSY) {
    }
}
