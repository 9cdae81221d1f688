/* STM32 USART with the ISR/ICR/RDR/TDR register layout (STM32F7, L4, G0, H7...). Polled, no interrupts.
 * The board's init (board_<name>.c) enables the USART's clock and routes its pins; this file only programs the
 * USART at FG_UART_BASE: 8N1 at FG_UART_BAUD from a kernel clock of FG_UART_CLOCK_HZ, oversampling by 16. */
#include "fg_port.h"

#if !defined(FG_UART_BASE) || !defined(FG_UART_BAUD) || !defined(FG_UART_CLOCK_HZ)
#error "FG_UART_BASE, FG_UART_BAUD and FG_UART_CLOCK_HZ must be defined (from the board file)"
#endif

/* A host test of this driver defines UART_REG to reach a model of the peripheral instead. */
#ifndef UART_REG
#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#endif
#define USART_CR1 UART_REG(0x00)
#define USART_CR3 UART_REG(0x08)
#define USART_BRR UART_REG(0x0C)
#define USART_ISR UART_REG(0x1C)
#define USART_ICR UART_REG(0x20)
#define USART_RDR UART_REG(0x24)
#define USART_TDR UART_REG(0x28)
#define CR1_UE (1u << 0)
#define CR1_RE (1u << 2)
#define CR1_TE (1u << 3)
#define CR3_OVRDIS (1u << 12) /* an overrun keeps the newest byte instead of stopping reception */
#define ISR_ERRORS 0xFu       /* PE, FE, NF, ORE: cleared through ICR at the same bit positions */
#define ISR_RXNE (1u << 5)
#define ISR_TC (1u << 6)
#define ISR_TXE (1u << 7)
/* BRR = kernel clock / baud, rounded (oversampling by 16). */
#define USART_DIVIDER ((uint32_t)(((FG_UART_CLOCK_HZ) + (FG_UART_BAUD) / 2u) / (FG_UART_BAUD)))

void fg_uart_init(void) {
    USART_CR1 = 0;
    USART_BRR = USART_DIVIDER;
    USART_CR3 = CR3_OVRDIS;
    USART_CR1 = CR1_UE | CR1_TE | CR1_RE;
}

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        while (!(USART_ISR & ISR_TXE)) {
        }
        USART_TDR = p[i];
    }
}

uint8_t fg_uart_read_byte(void) {
    uint32_t status;
    while (!((status = USART_ISR) & ISR_RXNE)) {
        if (status & ISR_ERRORS) {
            USART_ICR = status & ISR_ERRORS; /* a framing or noise error drops the byte: the frame CRC catches it */
        }
    }
    return (uint8_t)USART_RDR;
}

void fg_uart_flush(void) {
    while (!(USART_ISR & ISR_TC)) {
    }
}
