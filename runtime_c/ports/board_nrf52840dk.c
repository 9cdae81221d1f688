/* Nordic nRF52840-DK set-up: start the 32 MHz crystal (HFXO) so that the UARTE's baud rate is crystal-accurate;
 * the core runs at 64 MHz whatever the source. The UARTE driver selects the pins (P0.06 TX, P0.08 RX). */
#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define CLOCK_TASKS_HFCLKSTART REG32(0x40000000u)
#define CLOCK_EVENTS_HFCLKSTARTED REG32(0x40000100u)
/* Revision 3 silicon (2023 on) keeps the debug port locked after reset unless the firmware opens it, when the UICR
 * asks for it (APPROTECT = HwDisabled, 0x5A): so that pyOCD can flash the board again. */
#define UICR_APPROTECT REG32(0x10001208u)
#define APPROTECT_DISABLE REG32(0x40000558u)
#define APPROTECT_HW_DISABLED 0x5Au
#define APPROTECT_SW_DISABLE 0x5Au

void fg_board_init(void) {
    if ((UICR_APPROTECT & 0xFFu) == APPROTECT_HW_DISABLED) {
        APPROTECT_DISABLE = APPROTECT_SW_DISABLE;
    }
    CLOCK_EVENTS_HFCLKSTARTED = 0;
    CLOCK_TASKS_HFCLKSTART = 1;
    while (!CLOCK_EVENTS_HFCLKSTARTED) {
    }
}
