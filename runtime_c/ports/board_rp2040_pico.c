/* Raspberry Pi Pico (RP2040) set-up, on core 0 before anything else runs, from flash through the XIP window that the
 * second stage (boot2_rp2040.c) configured. Addresses and fields from the RP2040 Datasheet:
 * - 2.2 "Address map": RESETS 0x4000C000, CLOCKS 0x40008000, XOSC 0x40024000, PLL_SYS 0x40028000, IO_BANK0
 *   0x40014000, PADS_BANK0 0x4001C000, UART0 0x40034000 (the board file's uart.base).
 * - 2.1.2 "Atomic register access": a peripheral register's address + 0x2000 sets the bits written, + 0x3000 clears
 *   them.
 * - 2.14 "Subsystem resets" (RESET, RESET_DONE): IO_BANK0 bit 5, PADS_BANK0 bit 8, PLL_SYS bit 12, UART0 bit 22.
 * - 2.16 "Crystal oscillator (XOSC)": CTRL.FREQ_RANGE 0xAA0 (1-15 MHz), CTRL.ENABLE 0xFAB, STARTUP.DELAY in units
 *   of 256 crystal cycles (47: about 1 ms at 12 MHz), STATUS.STABLE bit 31.
 * - 2.18 "PLL" (CS, PWR, FBDIV_INT, PRIM): FOUTPOSTDIV = FREF / REFDIV x FBDIV / (POSTDIV1 x POSTDIV2) =
 *   12 MHz / 1 x 125 / (6 x 2) = 125 MHz, VCO 1500 MHz (within 750-1600 MHz); the order it gives: program the
 *   dividers, power up the PLL and VCO, wait for LOCK, then set and power up the post dividers.
 * - 2.15 "Clocks" (2.15.3 "Clock generators", 2.15.7 "List of registers"): clk_ref SRC 2 = XOSC; clk_sys SRC 1 =
 *   its aux mux, AUXSRC 0 = PLL_SYS; both glitchless, their SELECTED register one-hot for the source in use;
 *   clk_peri (the UARTs' clock) ENABLE bit 11, AUXSRC 0 = clk_sys; CLK_SYS_RESUS_CTRL 0x78 cleared.
 * - 2.19.2 "Function select": GPIO0/GPIO1 function 2 = UART0 TX/RX (GPIOn_CTRL at 0x04 + 8n, FUNCSEL bits 4:0);
 *   2.19.6.3 "Pad control - user bank": input enabled (bit 6), output not disabled (bit 7), 4 mA (bits 5:4 = 1),
 *   Schmitt trigger (bit 1), a pull-up on RX (bit 3) so an unwired RX idles high instead of reading a break.
 * Every base, offset, field position and enumerated value used here (and in boot2_rp2040.c) was checked one by one
 * against the register definitions generated from the RP2040's SVD, from which the datasheet's register tables come.
 * The set-up works from any state (after the SYSRESETREQ that ends a run the clocks may still come from the PLL):
 * clk_sys and clk_ref first go back to the sources that need no PLL or crystal, as the SDK's clocks_init does. */
#include "fg_port.h"

/* A host test of this set-up defines REG32 to reach a model of the chip's registers instead. */
#ifndef REG32
#define REG32(address) (*(volatile uint32_t *)(uintptr_t)(address))
#endif
#define SET_ALIAS 0x2000u
#define CLEAR_ALIAS 0x3000u

#define RESETS_BASE 0x4000C000u
#define RESETS_RESET_DONE REG32(RESETS_BASE + 0x8u)
#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)
#define RESET_PLL_SYS (1u << 12)
#define RESET_UART0 (1u << 22)

#define XOSC_CTRL REG32(0x40024000u)
#define XOSC_STATUS REG32(0x40024004u)
#define XOSC_STARTUP REG32(0x4002400Cu)
#define XOSC_CTRL_1_15MHZ 0xAA0u
#define XOSC_CTRL_ENABLE (0xFABu << 12)
#define XOSC_STARTUP_1MS 47u /* (12 MHz x 1 ms) / 256 */
#define XOSC_STATUS_STABLE (1u << 31)

#define PLL_SYS_BASE 0x40028000u
#define PLL_SYS_CS REG32(PLL_SYS_BASE + 0x0u)
#define PLL_SYS_PWR_CLEAR REG32(PLL_SYS_BASE + 0x4u + CLEAR_ALIAS)
#define PLL_SYS_FBDIV_INT REG32(PLL_SYS_BASE + 0x8u)
#define PLL_SYS_PRIM REG32(PLL_SYS_BASE + 0xCu)
#define PLL_CS_LOCK (1u << 31)
#define PLL_PWR_PD (1u << 0)
#define PLL_PWR_POSTDIVPD (1u << 3)
#define PLL_PWR_VCOPD (1u << 5)
#define PLL_REFDIV 1u
#define PLL_FBDIV 125u
#define PLL_POSTDIV1 6u
#define PLL_POSTDIV2 2u

#define CLOCKS_BASE 0x40008000u
#define CLK_REF_CTRL_ADDRESS (CLOCKS_BASE + 0x30u)
#define CLK_REF_DIV REG32(CLOCKS_BASE + 0x34u)
#define CLK_REF_SELECTED_ADDRESS (CLOCKS_BASE + 0x38u)
#define CLK_SYS_CTRL_ADDRESS (CLOCKS_BASE + 0x3Cu)
#define CLK_SYS_CTRL REG32(CLK_SYS_CTRL_ADDRESS)
#define CLK_SYS_DIV REG32(CLOCKS_BASE + 0x40u)
#define CLK_SYS_SELECTED_ADDRESS (CLOCKS_BASE + 0x44u)
#define CLK_PERI_CTRL REG32(CLOCKS_BASE + 0x48u)
#define CLK_SYS_RESUS_CTRL REG32(CLOCKS_BASE + 0x78u)
#define CLK_REF_SRC_ROSC 0u
#define CLK_REF_SRC_XOSC 2u
#define CLK_SYS_SRC_CLK_REF 0u
#define CLK_SYS_SRC_AUX 1u
#define CLK_SYS_AUXSRC_PLL_SYS (0u << 5)
#define CLK_PERI_ENABLE (1u << 11)
#define CLK_PERI_AUXSRC_CLK_SYS (0u << 5)
#define CLK_DIV_1 (1u << 8) /* integer part in bits 31:8 */

#define IO_BANK0_GPIO_CTRL(pin) REG32(0x40014004u + 8u * (pin))
#define PADS_BANK0_GPIO(pin) REG32(0x4001C004u + 4u * (pin))
#define FUNCSEL_UART 2u
#define PAD_SCHMITT (1u << 1)
#define PAD_PULL_UP (1u << 3)
#define PAD_DRIVE_4MA (1u << 4)
#define PAD_INPUT_ENABLE (1u << 6)
#define PIN_TX 0u
#define PIN_RX 1u

static void reset_cycle(uint32_t blocks) {
    REG32(RESETS_BASE + SET_ALIAS) = blocks;
    REG32(RESETS_BASE + CLEAR_ALIAS) = blocks;
    while ((RESETS_RESET_DONE & blocks) != blocks) {
    }
}

/* A glitchless clock's source, and the wait until the mux has switched (registers by address). */
static void select_source(uint32_t ctrl, uint32_t selected, uint32_t source) {
    REG32(ctrl) = (REG32(ctrl) & ~3u) | source;
    while (REG32(selected) != (1u << source)) {
    }
}

static void start_crystal(void) {
    XOSC_CTRL = XOSC_CTRL_1_15MHZ;
    XOSC_STARTUP = XOSC_STARTUP_1MS;
    XOSC_CTRL = XOSC_CTRL_1_15MHZ | XOSC_CTRL_ENABLE;
    while (!(XOSC_STATUS & XOSC_STATUS_STABLE)) {
    }
}

static void start_pll_sys(void) {
    reset_cycle(RESET_PLL_SYS);
    PLL_SYS_CS = PLL_REFDIV;
    PLL_SYS_FBDIV_INT = PLL_FBDIV;
    PLL_SYS_PWR_CLEAR = PLL_PWR_PD | PLL_PWR_VCOPD;
    while (!(PLL_SYS_CS & PLL_CS_LOCK)) {
    }
    PLL_SYS_PRIM = (PLL_POSTDIV1 << 16) | (PLL_POSTDIV2 << 12);
    PLL_SYS_PWR_CLEAR = PLL_PWR_POSTDIVPD;
}

static void clocks_from_pll(void) {
    CLK_SYS_RESUS_CTRL = 0;
    select_source(CLK_SYS_CTRL_ADDRESS, CLK_SYS_SELECTED_ADDRESS, CLK_SYS_SRC_CLK_REF);
    select_source(CLK_REF_CTRL_ADDRESS, CLK_REF_SELECTED_ADDRESS, CLK_REF_SRC_ROSC);
    start_crystal();
    start_pll_sys();
    CLK_REF_DIV = CLK_DIV_1;
    select_source(CLK_REF_CTRL_ADDRESS, CLK_REF_SELECTED_ADDRESS, CLK_REF_SRC_XOSC);
    CLK_SYS_DIV = CLK_DIV_1;
    CLK_SYS_CTRL = CLK_SYS_AUXSRC_PLL_SYS | CLK_SYS_SRC_CLK_REF; /* the aux mux is changed while unselected */
    select_source(CLK_SYS_CTRL_ADDRESS, CLK_SYS_SELECTED_ADDRESS, CLK_SYS_SRC_AUX);
    CLK_PERI_CTRL = CLK_PERI_ENABLE | CLK_PERI_AUXSRC_CLK_SYS;
}

void fg_board_init(void) {
    clocks_from_pll();
    reset_cycle(RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_UART0);
    PADS_BANK0_GPIO(PIN_TX) = PAD_INPUT_ENABLE | PAD_DRIVE_4MA | PAD_SCHMITT;
    PADS_BANK0_GPIO(PIN_RX) = PAD_INPUT_ENABLE | PAD_DRIVE_4MA | PAD_SCHMITT | PAD_PULL_UP;
    IO_BANK0_GPIO_CTRL(PIN_TX) = FUNCSEL_UART;
    IO_BANK0_GPIO_CTRL(PIN_RX) = FUNCSEL_UART;
}
