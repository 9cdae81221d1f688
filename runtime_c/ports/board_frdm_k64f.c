/* NXP FRDM-K64F set-up: the watchdog (running at reset, ~0.25 s) is turned off first; the core stays in FEI mode
 * (FLL, 20.97 MHz) it resets to; UART0 and PORTB get their clock gates and PTB16 (RX) / PTB17 (TX) go to ALT3,
 * the pins wired to the OpenSDA virtual COM port. Also the flash configuration field the chip reads at reset. */
#include "fg_port.h"

#define REG16(address) (*(volatile uint16_t *)(address))
#define REG32(address) (*(volatile uint32_t *)(address))
#define WDOG_STCTRLH REG16(0x40052000u)
#define WDOG_UNLOCK REG16(0x4005200Eu)
#define WDOG_UNLOCK_KEY1 0xC520u
#define WDOG_UNLOCK_KEY2 0xD928u
#define WDOG_STCTRLH_DISABLED 0x01D2u /* the reset value with WDOGEN cleared */
#define SIM_SCGC4 REG32(0x40048034u)
#define SIM_SCGC5 REG32(0x40048038u)
#define SIM_SCGC4_UART0 (1u << 10)
#define SIM_SCGC5_PORTB (1u << 10)
#define PORTB_PCR(pin) REG32(0x4004A000u + 4u * (pin))
#define PCR_MUX_ALT3 (3u << 8)

/* Flash configuration field (0x400-0x40F): backdoor key, program protection (none), FSEC = 0xFE (unsecured: a
 * secured chip can only be mass-erased), FOPT = 0xFF (normal boot), no EEPROM/data-flash protection. The linker
 * script asserts it lands at 0x400. */
__attribute__((section(".fg_flash_config"), used)) static const uint8_t flash_config[16] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* backdoor comparison key */
    0xFF, 0xFF, 0xFF, 0xFF,                         /* FPROT3..0: no region protected */
    0xFE,                                           /* FSEC: unsecured, mass erase allowed */
    0xFF,                                           /* FOPT */
    0xFF, 0xFF,                                     /* FEPROT, FDPROT */
};

void fg_board_init(void) {
    /* Unlock and write must each follow within a few bus cycles: keep them back to back, interrupts off. */
    __asm__ volatile("cpsid i" ::: "memory");
    WDOG_UNLOCK = WDOG_UNLOCK_KEY1;
    WDOG_UNLOCK = WDOG_UNLOCK_KEY2;
    WDOG_STCTRLH = WDOG_STCTRLH_DISABLED;
    __asm__ volatile("cpsie i" ::: "memory");
    SIM_SCGC4 |= SIM_SCGC4_UART0;
    SIM_SCGC5 |= SIM_SCGC5_PORTB;
    PORTB_PCR(16) = PCR_MUX_ALT3;
    PORTB_PCR(17) = PCR_MUX_ALT3;
}
