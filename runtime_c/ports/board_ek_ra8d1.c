/* Renesas EK-RA8D1 set-up (R7FA8D1BH, Secure): a known clock tree on the 8 MHz MOCO the part resets to (every
 * divider 1, so no flash or SRAM wait states to program), SCI9 clocked from the MOCO as well (SCICLK = 8 MHz) and
 * taken out of module stop, and PA14 (TXD9) / PA15 (RXD9) switched to the SCI9 function, the pins wired to the J-Link
 * OB's virtual COM port. Addresses from the RA8D1 Group User's Manual: Hardware: SYSTEM at 0x4001E000
 * (SCKDIVCR 0x20, SCKDIVCR2 0x24, SCKSCR 0x26, SCICKDIVCR 0x54, SCICKCR 0x55, PRCR 0x3FE), MSTPCRB at 0x40203004
 * (SCI9: bit 22), PFS at 0x40400800 + 0x40 x port + 4 x pin, PWPR at 0x40400D03. */
#include "fg_port.h"

#define REG8(address) (*(volatile uint8_t *)(uintptr_t)(address))
#define REG16(address) (*(volatile uint16_t *)(uintptr_t)(address))
#define REG32(address) (*(volatile uint32_t *)(uintptr_t)(address))
#define SYSTEM_SCKDIVCR REG32(0x4001E020u)
#define SYSTEM_SCKDIVCR2 REG8(0x4001E024u)
#define SYSTEM_SCKSCR REG8(0x4001E026u)
#define SYSTEM_SCICKDIVCR REG8(0x4001E054u)
#define SYSTEM_SCICKCR REG8(0x4001E055u)
#define SYSTEM_PRCR REG16(0x4001E3FEu)
#define PRCR_UNLOCK 0xA503u /* key 0xA5, PRC0 (clock generation) and PRC1 (module stop, low power) */
#define PRCR_LOCK 0xA500u
#define CLOCK_SOURCE_MOCO 1u
#define SCICKCR_CKSREQ (1u << 6)
#define SCICKCR_CKSRDY (1u << 7)
#define MSTPCRB REG32(0x40203004u)
#define MSTPCRB_SCI9 (1u << 22)
#define PFS(port, pin) REG32(0x40400800u + 0x40u * (port) + 4u * (pin))
#define PWPR REG8(0x40400D03u)
#define PWPR_PFSWE (1u << 6)
#define PWPR_B0WI (1u << 7)
#define PFS_PCR (1u << 4) /* pull-up */
#define PFS_PMR (1u << 16)
#define PFS_PSEL_SCI_ODD (5u << 24) /* SCI1, 3, 5, 7, 9 */
#define PORT_A 10u
#define PIN_TXD9 14u
#define PIN_RXD9 15u

static void pin_to_sci9(uint32_t pin, uint32_t extra) {
    PFS(PORT_A, pin) = extra; /* PMR cleared before PSEL changes */
    PFS(PORT_A, pin) = extra | PFS_PSEL_SCI_ODD;
    PFS(PORT_A, pin) = extra | PFS_PSEL_SCI_ODD | PFS_PMR;
}

void fg_board_init(void) {
    SYSTEM_PRCR = PRCR_UNLOCK;
    SYSTEM_SCKDIVCR2 = 0; /* CPUCLK = source / 1 */
    SYSTEM_SCKDIVCR = 0;  /* ICLK, PCLKA..E, BCLK, FCLK = source / 1 */
    SYSTEM_SCKSCR = CLOCK_SOURCE_MOCO;
    /* SCICLK's source changes only through the request/ready handshake. */
    SYSTEM_SCICKCR |= SCICKCR_CKSREQ;
    while (!(SYSTEM_SCICKCR & SCICKCR_CKSRDY)) {
    }
    SYSTEM_SCICKDIVCR = 0;
    SYSTEM_SCICKCR = SCICKCR_CKSREQ | CLOCK_SOURCE_MOCO;
    SYSTEM_SCICKCR = CLOCK_SOURCE_MOCO;
    while (SYSTEM_SCICKCR & SCICKCR_CKSRDY) {
    }
    MSTPCRB &= ~MSTPCRB_SCI9;
    (void)MSTPCRB; /* read back: the module runs before its first register access */
    SYSTEM_PRCR = PRCR_LOCK;
    PWPR = 0;
    PWPR = PWPR_PFSWE;
    pin_to_sci9(PIN_TXD9, 0);
    pin_to_sci9(PIN_RXD9, PFS_PCR);
    PWPR = 0;
    PWPR = PWPR_B0WI;
}
