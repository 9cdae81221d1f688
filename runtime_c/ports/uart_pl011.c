/* ARM PrimeCell PL011 UART (TI Stellaris LM3S6965 UART0 under QEMU, the RP2040's UART0). Polled, no interrupts.
 * With FG_UART_CLOCK_HZ (a real board) it sets the baud rate and 8N1 with FIFOs (PL011 TRM, "UARTIBRD",
 * "UARTFBRD", "UARTLCR_H"; RP2040 Datasheet 4.2 "UART", baud rate divisor); QEMU needs none. */
#include "fg_port.h"

#ifndef FG_UART_BASE
#error "FG_UART_BASE must be defined (the board's UART base address)"
#endif

/* A host test of this driver defines UART_REG to reach a model of the peripheral instead. */
#ifndef UART_REG
#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#endif
#define UART_DR UART_REG(0x000)
#define UART_FR UART_REG(0x018)
#define UART_IBRD UART_REG(0x024)
#define UART_FBRD UART_REG(0x028)
#define UART_LCR_H UART_REG(0x02C)
#define UART_CR UART_REG(0x030)
#define FR_BUSY (1u << 3)
#define FR_RXFE (1u << 4)
#define FR_TXFF (1u << 5)
#define CR_UARTEN (1u << 0)
#define CR_TXE (1u << 8)
#define CR_RXE (1u << 9)
#define LCR_H_FIFO_ENABLE (1u << 4)
#define LCR_H_8_BITS (3u << 5)

void fg_uart_init(void) {
#ifdef FG_UART_CLOCK_HZ
    /* Divisor clock / (16 baud) in 1/64ths, rounded: integer part to IBRD, fraction to FBRD. The LCR_H write
     * latches both. */
    uint32_t sixty_fourths = (4u * FG_UART_CLOCK_HZ + FG_UART_BAUD / 2u) / FG_UART_BAUD;
    UART_CR = 0;
    UART_IBRD = sixty_fourths >> 6;
    UART_FBRD = sixty_fourths & 63u;
    UART_LCR_H = LCR_H_8_BITS | LCR_H_FIFO_ENABLE;
#endif
    UART_CR = CR_UARTEN | CR_TXE | CR_RXE;
}

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
