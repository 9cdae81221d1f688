/* Renesas SCI_B (RA8 series) in asynchronous mode, polled: 8N1 at FG_UART_BAUD from the SCI clock FG_UART_CLOCK_HZ
 * (SCICLK). Register offsets and bits from the RA8D1 Group User's Manual: Hardware, SCI_B chapter:
 * RDR 0x00, TDR 0x04, CCR0 0x08 (RE bit 0, TE bit 4), CCR2 0x10 (BGDM bit 4, ABCS bit 5, BRR 15:8, BRME bit 16,
 * CKS 21:20, MDDR 31:24), CCR3 0x14 (CHR 9:8, LSBF bit 12, STP bit 14, MOD 18:16), CSR 0x48 (ORER 24, PER 27, FER 28,
 * TDRE 29, TEND 30, RDRF 31), CFCLR 0x68 (the same positions clear the flags).
 * The bit rate: 8 base clocks per bit (ABCS = BGDM = 1), BRR = N from N + 1 = clock / (8 baud) rounded down, and
 * the bit rate modulation (MDDR / 256) taking the rest: 8 MHz, 115,200 baud gives N = 7, MDDR = 236, 115,234 baud
 * (+0.03%). */
#include "fg_port.h"

#if !defined(FG_UART_BASE) || !defined(FG_UART_BAUD) || !defined(FG_UART_CLOCK_HZ)
#error "FG_UART_BASE, FG_UART_BAUD and FG_UART_CLOCK_HZ must be defined (from the board file)"
#endif

/* A host test of this driver defines UART_REG to reach a model of the peripheral instead. */
#ifndef UART_REG
#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#endif
#define SCI_RDR UART_REG(0x00)
#define SCI_TDR UART_REG(0x04)
#define SCI_CCR0 UART_REG(0x08)
#define SCI_CCR2 UART_REG(0x10)
#define SCI_CCR3 UART_REG(0x14)
#define SCI_CSR UART_REG(0x48)
#define SCI_CFCLR UART_REG(0x68)
#define CCR0_RE (1u << 0)
#define CCR0_TE (1u << 4)
#define CCR2_BGDM (1u << 4)
#define CCR2_ABCS (1u << 5)
#define CCR2_BRR(n) ((uint32_t)(n) << 8)
#define CCR2_BRME (1u << 16)
#define CCR2_MDDR(m) ((uint32_t)(m) << 24)
#define CCR3_CHR_8BIT (2u << 8)
#define CCR3_LSBF (1u << 12) /* least significant bit first; MOD = 0: asynchronous; STP = 0: one stop bit */
#define CSR_ERRORS ((1u << 24) | (1u << 27) | (1u << 28)) /* ORER, PER, FER */
#define CSR_TDRE (1u << 29)
#define CSR_TEND (1u << 30)
#define CSR_RDRF (1u << 31)

#define SCI_DIVISOR ((FG_UART_CLOCK_HZ) / (8u * (FG_UART_BAUD))) /* N + 1 */
#if SCI_DIVISOR < 1 || SCI_DIVISOR > 256
#error "uart.clock_hz / (8 x baud) must be 1..256 for the SCI_B's bit rate register"
#endif
#define SCI_MDDR \
    ((uint32_t)((256ull * 8u * (FG_UART_BAUD) * SCI_DIVISOR + (FG_UART_CLOCK_HZ) / 2u) / (FG_UART_CLOCK_HZ)))
#define CCR2_VALUE \
    (CCR2_ABCS | CCR2_BGDM | CCR2_BRR(SCI_DIVISOR - 1u) | (SCI_MDDR < 256u ? CCR2_BRME | CCR2_MDDR(SCI_MDDR) : 0u))

void fg_uart_init(void) {
    SCI_CCR0 = 0;
    SCI_CCR3 = CCR3_CHR_8BIT | CCR3_LSBF;
    SCI_CCR2 = CCR2_VALUE;
    SCI_CFCLR = CSR_ERRORS;
    SCI_CCR0 = CCR0_TE | CCR0_RE;
}

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        while (!(SCI_CSR & CSR_TDRE)) {
        }
        SCI_TDR = p[i];
    }
}

uint8_t fg_uart_read_byte(void) {
    uint32_t status;
    while (!((status = SCI_CSR) & CSR_RDRF)) {
        if (status & CSR_ERRORS) {
            SCI_CFCLR = status & CSR_ERRORS; /* an overrun or framing error drops the byte: the frame CRC catches it */
        }
    }
    return (uint8_t)SCI_RDR; /* reading RDR clears RDRF */
}

void fg_uart_flush(void) {
    while (!(SCI_CSR & CSR_TEND)) {
    }
}
