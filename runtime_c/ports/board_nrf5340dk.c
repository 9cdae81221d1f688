/* Nordic nRF5340 DK set-up, application core, Secure: keep the debug port open when the UICR asks for it, so that
 * pyOCD can flash the board again, and start the 32 MHz crystal (HFXO) so the UARTE's baud rate is crystal-accurate.
 * The core stays at its reset clock, 64 MHz. The UARTE driver selects the pins (P0.20 TX, P0.22 RX).
 * Register offsets from the nRF5340 Product Specification (UICR, CTRL-AP peripheral, CLOCK). */
#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define UICR_APPROTECT REG32(0x00FF8000u)
#define UICR_SECUREAPPROTECT REG32(0x00FF801Cu)
#define CTRLAP_APPROTECT_DISABLE REG32(0x50006544u)
#define CTRLAP_SECUREAPPROTECT_DISABLE REG32(0x5000654Cu)
#define CLOCK_TASKS_HFCLKSTART REG32(0x50005000u)
#define CLOCK_EVENTS_HFCLKSTARTED REG32(0x50005100u)

void fg_board_init(void) {
    /* The access port's "soft" protection branch opens when these registers hold the UICR's unprotected values
     * (0x50FA50FA); anything else leaves it closed, as the UICR says. */
    CTRLAP_APPROTECT_DISABLE = UICR_APPROTECT;
    CTRLAP_SECUREAPPROTECT_DISABLE = UICR_SECUREAPPROTECT;
    CLOCK_EVENTS_HFCLKSTARTED = 0;
    CLOCK_TASKS_HFCLKSTART = 1;
    while (!CLOCK_EVENTS_HFCLKSTARTED) {
    }
}
