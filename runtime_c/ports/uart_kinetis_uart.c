/* NXP Kinetis UART (K64F UART0..5). Polled, no interrupts, FIFOs off. 8N1 at FG_UART_BAUD from a module clock of
 * FG_UART_CLOCK_HZ: baud = clock / (16 x (SBR + BRFA / 32)). The board's init enables the clock gate and pins. */
#include "fg_port.h"

#if !defined(FG_UART_BASE) || !defined(FG_UART_BAUD) || !defined(FG_UART_CLOCK_HZ)
#error "FG_UART_BASE, FG_UART_BAUD and FG_UART_CLOCK_HZ must be defined (from the board file)"
#endif

/* A host test of this driver defines UART_REG8 to reach a model of the peripheral instead. */
#ifndef UART_REG8
#define UART_REG8(offset) (*(volatile uint8_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#endif
#define UART_BDH UART_REG8(0x0)
#define UART_BDL UART_REG8(0x1)
#define UART_C1 UART_REG8(0x2)
#define UART_C2 UART_REG8(0x3)
#define UART_S1 UART_REG8(0x4)
#define UART_D UART_REG8(0x7)
#define UART_C4 UART_REG8(0xA)
#define C2_RE (1u << 2)
#define C2_TE (1u << 3)
#define S1_OR (1u << 3)
#define S1_RDRF (1u << 5)
#define S1_TC (1u << 6)
#define S1_TDRE (1u << 7)
#define C4_BRFA_MASK 0x1Fu
/* The divisor in 1/32 steps, rounded: 32 x clock / (16 x baud). */
#define UART_DIVIDER_32THS ((uint32_t)((2u * (uint64_t)(FG_UART_CLOCK_HZ) + (FG_UART_BAUD) / 2u) / (FG_UART_BAUD)))
#define UART_SBR (UART_DIVIDER_32THS / 32u)
#define UART_BRFA (UART_DIVIDER_32THS % 32u)

void fg_uart_init(void) {
    UART_C2 = 0;
    UART_BDH = (uint8_t)((UART_SBR >> 8) & 0x1Fu);
    UART_BDL = (uint8_t)(UART_SBR & 0xFFu);
    UART_C4 = (uint8_t)((UART_C4 & ~C4_BRFA_MASK) | UART_BRFA);
    UART_C1 = 0;
    UART_C2 = C2_TE | C2_RE;
}

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        while (!(UART_S1 & S1_TDRE)) {
        }
        UART_D = p[i];
    }
}

uint8_t fg_uart_read_byte(void) {
    uint8_t status;
    while (!((status = UART_S1) & S1_RDRF)) {
        if (status & S1_OR) {
            (void)UART_D; /* reading S1 then D clears an overrun; the frame CRC catches the lost byte */
        }
    }
    return UART_D;
}

void fg_uart_flush(void) {
    while (!(UART_S1 & S1_TC)) {
    }
}
