/* A register-level model of the parts of the RP2040 that runtime_c/ports/board_rp2040_pico.c sets up (RP2040
 * Datasheet 2.14 "Subsystem resets", 2.15 "Clocks", 2.16 "XOSC", 2.18 "PLL", 2.19 "GPIO"), for a host test of the
 * set-up: the board file is compiled with REG32(address) defined as a call into the model, which hands out one
 * register at a time and acts on what was written to it at the next access (each access is one tick of model
 * time). It names every step the datasheet forbids (a block used in reset, a PLL started without its reference or
 * outside its VCO range, a glitchless mux switched to a source that is not running, an aux mux changed while
 * selected, a PLL reset under a clock that uses it) and prints the clocks and pins it ends with.
 * -DMODEL_WARM starts from the state a run leaves: clocks on the PLL, every block out of reset. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fg_port.h"
#include "rp2040_model.h"

#define ROSC_HZ 6500000u /* nominal */
#define XOSC_HZ 12000000u
#define SETTLE_TICKS 8u  /* accesses a crystal, a PLL lock or a mux switch takes */

#define RESETS 0x4000C000u
#define RESET_DONE 0x4000C008u
#define SET_ALIAS 0x2000u
#define CLEAR_ALIAS 0x3000u
#define XOSC_CTRL 0x40024000u
#define XOSC_STATUS 0x40024004u
#define XOSC_STARTUP 0x4002400Cu
#define PLL_CS 0x40028000u
#define PLL_PWR 0x40028004u
#define PLL_FBDIV 0x40028008u
#define PLL_PRIM 0x4002800Cu
#define CLK_REF_CTRL 0x40008030u
#define CLK_REF_DIV 0x40008034u
#define CLK_REF_SELECTED 0x40008038u
#define CLK_SYS_CTRL 0x4000803Cu
#define CLK_SYS_DIV 0x40008040u
#define CLK_SYS_SELECTED 0x40008044u
#define CLK_PERI_CTRL 0x40008048u
#define CLK_SYS_RESUS_CTRL 0x40008078u
#define IO_BANK0 0x40014000u
#define PADS_BANK0 0x4001C000u
#define ALL_RESETS 0x01FFFFFFu
#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)
#define RESET_PLL_SYS (1u << 12)
#define PWR_RESET 0x2Du /* PD, DSMPD, POSTDIVPD, VCOPD */
#define PWR_PD (1u << 0)
#define PWR_POSTDIVPD (1u << 3)
#define PWR_VCOPD (1u << 5)

static uint32_t resets = ALL_RESETS;
static uint32_t xosc_ctrl, xosc_startup, xosc_settle;
static int xosc_stable;
static uint32_t pll_cs, pll_pwr = PWR_RESET, pll_fbdiv, pll_prim, pll_settle;
static int pll_locked;
static uint32_t ref_ctrl, ref_div = 1u << 8, ref_selected = 0, ref_settle; /* selected: source number */
static uint32_t sys_ctrl, sys_div = 1u << 8, sys_selected = 0, sys_settle;
static uint32_t peri_ctrl, resus_ctrl = 0xFFu;
static uint32_t gpio_ctrl[2] = {31u, 31u}, pads[2] = {0x56u, 0x56u};
static char misuses[2048];

static uint32_t slot, slot_address, slot_read;
static int slot_live;

static void misuse(const char *what) {
    if (strstr(misuses, what) == NULL && strlen(misuses) + strlen(what) + 2 < sizeof misuses) {
        strcat(misuses, what);
        strcat(misuses, ";");
    }
}

static int pll_running(void) { return pll_locked && !(pll_pwr & PWR_POSTDIVPD) && !(resets & RESET_PLL_SYS); }

static uint32_t pll_hz(void) {
    uint32_t postdivs = ((pll_prim >> 16) & 7u) * ((pll_prim >> 12) & 7u);
    return pll_running() && postdivs ? (uint32_t)((uint64_t)XOSC_HZ / (pll_cs & 0x3Fu) * pll_fbdiv / postdivs) : 0;
}

static uint32_t ref_hz(void) {
    return (ref_selected == 2u ? XOSC_HZ : ref_selected == 0u ? ROSC_HZ : 0u) / (ref_div >> 8);
}

static uint32_t sys_hz(void) {
    if (sys_selected == 0u) {
        return ref_hz() / (sys_div >> 8);
    }
    return (((sys_ctrl >> 5) & 7u) == 0u ? pll_hz() : 0u) / (sys_div >> 8);
}

static void in_reset_check(uint32_t address) {
    if ((address & 0xFFFFC000u) == IO_BANK0 && (resets & RESET_IO_BANK0)) {
        misuse("IO_BANK0 used while in reset");
    }
    if ((address & 0xFFFFC000u) == PADS_BANK0 && (resets & RESET_PADS_BANK0)) {
        misuse("PADS_BANK0 used while in reset");
    }
    if ((address & 0xFFFFC000u) == (PLL_CS & 0xFFFFC000u) && (resets & RESET_PLL_SYS)) {
        misuse("PLL_SYS used while in reset");
    }
}

static void set_resets(uint32_t value) {
    if ((value & RESET_PLL_SYS) && !(resets & RESET_PLL_SYS)) {
        if (sys_selected == 1u && ((sys_ctrl >> 5) & 7u) == 0u) {
            misuse("PLL_SYS reset while clk_sys runs from it");
        }
        pll_cs = pll_fbdiv = pll_prim = 0;
        pll_pwr = PWR_RESET;
        pll_locked = 0;
    }
    resets = value & ALL_RESETS;
}

static void write_pll(uint32_t address, uint32_t value) {
    if (address == PLL_CS) {
        pll_cs = value;
    } else if (address == PLL_FBDIV) {
        pll_fbdiv = value;
    } else if (address == PLL_PRIM) {
        pll_prim = value;
    } else if ((address & 0xFFFu) == (PLL_PWR & 0xFFFu)) {
        uint32_t before = pll_pwr;
        pll_pwr = address == PLL_PWR ? value : address == PLL_PWR + CLEAR_ALIAS ? pll_pwr & ~value : pll_pwr | value;
        if ((before & (PWR_PD | PWR_VCOPD)) && !(pll_pwr & (PWR_PD | PWR_VCOPD))) {
            uint32_t refdiv = pll_cs & 0x3Fu;
            uint64_t vco = refdiv ? (uint64_t)XOSC_HZ / refdiv * pll_fbdiv : 0;
            if (!xosc_stable) { /* the PLL's reference is the crystal oscillator itself */
                misuse("PLL_SYS powered up before its reference (XOSC) was stable");
            }
            if (refdiv == 0 || pll_fbdiv < 16u || pll_fbdiv > 320u || vco < 750000000u || vco > 1600000000u) {
                misuse("PLL_SYS powered up with REFDIV/FBDIV outside the datasheet's VCO range");
            }
            pll_settle = SETTLE_TICKS;
        }
    }
}

static void write_clock(uint32_t address, uint32_t value) {
    if (address == CLK_REF_CTRL) {
        if ((value & 3u) == 2u && !xosc_stable) {
            misuse("clk_ref switched to the XOSC before it was stable");
        }
        ref_ctrl = value;
        ref_settle = SETTLE_TICKS;
    } else if (address == CLK_REF_DIV) {
        ref_div = value;
    } else if (address == CLK_SYS_CTRL) {
        if (((value ^ sys_ctrl) >> 5) & 7u && sys_selected == 1u) {
            misuse("clk_sys AUXSRC changed while clk_sys ran from the aux mux (a glitch)");
        }
        if ((value & 1u) == 1u && ((value >> 5) & 7u) == 0u && !pll_running()) {
            misuse("clk_sys switched to PLL_SYS before it was locked with its post dividers on");
        }
        sys_ctrl = value;
        sys_settle = SETTLE_TICKS;
    } else if (address == CLK_SYS_DIV) {
        sys_div = value;
    } else if (address == CLK_PERI_CTRL) {
        peri_ctrl = value;
    } else if (address == CLK_SYS_RESUS_CTRL) {
        resus_ctrl = value;
    }
}

static void write_register(uint32_t address, uint32_t value) {
    in_reset_check(address);
    if (address == RESETS) {
        set_resets(value);
    } else if (address == RESETS + SET_ALIAS) {
        set_resets(resets | value);
    } else if (address == RESETS + CLEAR_ALIAS) {
        set_resets(resets & ~value);
    } else if (address == XOSC_STARTUP) {
        xosc_startup = value;
    } else if (address == XOSC_CTRL) {
        if (((value >> 12) & 0xFFFu) == 0xFABu && !(((xosc_ctrl >> 12) & 0xFFFu) == 0xFABu)) {
            if ((value & 0xFFFu) != 0xAA0u || xosc_startup == 0) {
                misuse("XOSC enabled without FREQ_RANGE 1-15 MHz and a STARTUP delay");
            }
            xosc_settle = SETTLE_TICKS;
        }
        xosc_ctrl = value;
    } else if ((address & 0xFFFFC000u) == (PLL_CS & 0xFFFFC000u)) {
        write_pll(address, value);
    } else if ((address & 0xFFFFF000u) == 0x40008000u) {
        write_clock(address, value);
    } else if (address >= IO_BANK0 + 4u && address <= IO_BANK0 + 12u) {
        gpio_ctrl[(address - IO_BANK0 - 4u) / 8u] = value;
    } else if (address >= PADS_BANK0 + 4u && address <= PADS_BANK0 + 8u) {
        pads[(address - PADS_BANK0 - 4u) / 4u] = value;
    } else {
        misuse("a write to a register the model does not know");
    }
}

static uint32_t read_register(uint32_t address) {
    in_reset_check(address);
    switch (address) {
    case RESET_DONE: return ~resets & ALL_RESETS;
    case RESETS: return resets;
    case XOSC_CTRL: return xosc_ctrl;
    case XOSC_STATUS: return xosc_stable ? 1u << 31 : 0u;
    case PLL_CS: return pll_cs | (pll_locked ? 1u << 31 : 0u);
    case PLL_PWR: return pll_pwr;
    case CLK_REF_CTRL: return ref_ctrl;
    case CLK_REF_SELECTED: return 1u << ref_selected;
    case CLK_SYS_CTRL: return sys_ctrl;
    case CLK_SYS_SELECTED: return 1u << sys_selected;
    case CLK_PERI_CTRL: return peri_ctrl;
    case CLK_SYS_RESUS_CTRL: return resus_ctrl;
    default: return 0; /* the atomic aliases and write-only uses: what is written is seen at the next access */
    }
}

static void tick(void) {
    if (xosc_settle && --xosc_settle == 0) {
        xosc_stable = 1;
    }
    if (pll_settle && --pll_settle == 0) {
        pll_locked = 1;
    }
    if (ref_settle && --ref_settle == 0) {
        ref_selected = ref_ctrl & 3u;
    }
    if (sys_settle && --sys_settle == 0) {
        sys_selected = sys_ctrl & 1u;
    }
}

static void settle_slot(void) {
    if (slot_live && slot != slot_read) {
        write_register(slot_address, slot);
    }
    slot_live = 0;
}

volatile uint32_t *fg_model_reg(uint32_t address) {
    settle_slot();
    tick();
    slot_address = address;
    slot = slot_read = read_register(address);
    slot_live = 1;
    return &slot;
}

int main(void) {
#ifdef MODEL_WARM
    resets = 0;
    xosc_ctrl = 0xAA0u | (0xFABu << 12);
    xosc_startup = 47u;
    xosc_stable = 1;
    pll_cs = 1u;
    pll_fbdiv = 125u;
    pll_prim = (6u << 16) | (2u << 12);
    pll_pwr = 0x4u;
    pll_locked = 1;
    ref_ctrl = ref_selected = 2u;
    sys_ctrl = 1u;
    sys_selected = 1u;
    peri_ctrl = 1u << 11;
#endif
    fg_board_init();
    settle_slot();
    for (int i = 0; i < (int)SETTLE_TICKS; ++i) {
        tick();
    }
    printf("clk_ref %u\nclk_sys %u\nclk_peri %u\n", (unsigned)ref_hz(), (unsigned)sys_hz(),
           (unsigned)((peri_ctrl & (1u << 11)) && ((peri_ctrl >> 5) & 7u) == 0u ? sys_hz() : 0u));
    printf("resus 0x%X\nresets 0x%08X\nfuncsel %u %u\npads 0x%02X 0x%02X\n", (unsigned)resus_ctrl,
           (unsigned)resets, (unsigned)gpio_ctrl[0], (unsigned)gpio_ctrl[1], (unsigned)pads[0], (unsigned)pads[1]);
    printf("misuse %s\n", misuses);
    return 0;
}
