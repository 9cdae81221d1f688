/* Nordic nRF51 UART (the legacy UART without EasyDMA; nRF51 Series Reference Manual v3.0, chapter 29 "Universal
 * Asynchronous Receiver/Transmitter"). Polled, no interrupts, 8N1 at FG_UART_BAUD (115,200 unless set), TX on pin
 * FG_UART_TX_PIN and RX on FG_UART_RX_PIN of GPIO port 0, no flow control. Each byte written to TXD raises TXDRDY
 * once it has been sent; RXDRDY is raised for each byte moved into RXD, and clearing it before reading RXD lets the
 * next byte from the receive FIFO raise it again (RM v3.0, 29.4 and 29.5). QEMU's microbit machine models the same
 * registers (hw/char/nrf51_uart.c). */
#include "fg_port.h"

#if !defined(FG_UART_BASE) || !defined(FG_UART_TX_PIN) || !defined(FG_UART_RX_PIN)
#error "FG_UART_BASE, FG_UART_TX_PIN and FG_UART_RX_PIN must be defined"
#endif
#ifndef FG_UART_BAUD
#define FG_UART_BAUD 115200u
#endif

#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#define UART_TASKS_STARTRX UART_REG(0x000)
#define UART_TASKS_STARTTX UART_REG(0x008)
#define UART_EVENTS_RXDRDY UART_REG(0x108)
#define UART_EVENTS_TXDRDY UART_REG(0x11C)
#define UART_EVENTS_ERROR UART_REG(0x124)
#define UART_ERRORSRC UART_REG(0x480)
#define UART_ENABLE UART_REG(0x500)
#define UART_PSELRTS UART_REG(0x508)
#define UART_PSELTXD UART_REG(0x50C)
#define UART_PSELCTS UART_REG(0x510)
#define UART_PSELRXD UART_REG(0x514)
#define UART_RXD UART_REG(0x518)
#define UART_TXD UART_REG(0x51C)
#define UART_BAUDRATE UART_REG(0x524)
#define UART_CONFIG UART_REG(0x56C)
#define UART_ENABLE_ENABLED 4u
#define PSEL_DISCONNECTED 0xFFFFFFFFu

/* BAUDRATE values from RM v3.0, 29.9.16 (the register's table; other rates fail the build). */
#if (FG_UART_BAUD) == 9600u
#define UART_BAUDRATE_VALUE 0x00275000u
#elif (FG_UART_BAUD) == 38400u
#define UART_BAUDRATE_VALUE 0x009D5000u
#elif (FG_UART_BAUD) == 115200u
#define UART_BAUDRATE_VALUE 0x01D7E000u
#elif (FG_UART_BAUD) == 230400u
#define UART_BAUDRATE_VALUE 0x03AFB000u
#elif (FG_UART_BAUD) == 460800u
#define UART_BAUDRATE_VALUE 0x075F7000u
#elif (FG_UART_BAUD) == 1000000u
#define UART_BAUDRATE_VALUE 0x10000000u
#else
#error "FG_UART_BAUD: this driver knows the nRF51 UART's 9600, 38400, 115200, 230400, 460800 and 1000000"
#endif

#define GPIO_P0_REG(offset) (*(volatile uint32_t *)(0x50000000u + (offset)))
#define GPIO_OUTSET GPIO_P0_REG(0x508)
#define GPIO_PIN_CNF(pin) GPIO_P0_REG(0x700 + 4 * (pin))
#define PIN_CNF_OUTPUT 1u         /* DIR output, input buffer connected */
#define PIN_CNF_INPUT_PULLUP 0xCu /* DIR input, input buffer connected, PULL = 3: pull-up */

void fg_uart_init(void) {
    UART_ENABLE = 0;
    GPIO_OUTSET = 1u << FG_UART_TX_PIN; /* the idle line is high */
    GPIO_PIN_CNF(FG_UART_TX_PIN) = PIN_CNF_OUTPUT;
    GPIO_PIN_CNF(FG_UART_RX_PIN) = PIN_CNF_INPUT_PULLUP;
    UART_PSELTXD = FG_UART_TX_PIN;
    UART_PSELRXD = FG_UART_RX_PIN;
    UART_PSELRTS = PSEL_DISCONNECTED;
    UART_PSELCTS = PSEL_DISCONNECTED;
    UART_BAUDRATE = UART_BAUDRATE_VALUE;
    UART_CONFIG = 0; /* no parity, no flow control */
    UART_ENABLE = UART_ENABLE_ENABLED;
    UART_EVENTS_RXDRDY = 0;
    UART_EVENTS_TXDRDY = 0;
    UART_TASKS_STARTRX = 1;
    UART_TASKS_STARTTX = 1;
}

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        UART_EVENTS_TXDRDY = 0;
        UART_TXD = p[i];
        while (!UART_EVENTS_TXDRDY) {
        }
    }
}

uint8_t fg_uart_read_byte(void) {
    while (!UART_EVENTS_RXDRDY) {
        if (UART_EVENTS_ERROR) {
            UART_EVENTS_ERROR = 0;
            UART_ERRORSRC = UART_ERRORSRC; /* write-one-to-clear; the frame CRC catches the damaged byte */
        }
    }
    UART_EVENTS_RXDRDY = 0; /* before reading RXD: the next byte in the FIFO raises it again */
    return (uint8_t)UART_RXD;
}

/* Every write waited for TXDRDY, which the UART raises once the byte has left. */
void fg_uart_flush(void) {}
