/* Renesas RA8 SCI_B (RA8D1 Group User's Manual: Hardware, SCI_B chapter) asynchronous transmission: writing TDR
 * clears TDRE and TEND; TDR moves to the transmit shift register as soon as it is free, which sets TDRE; TEND is set
 * when a frame's stop bit has gone out and TDR is empty. CSR resets to TDRE | TEND. The driver writes TDR only with
 * CCR0.TE set. */
#include "uart_model.h"

#define TDR 0x04u
#define CCR0 0x08u
#define CCR2 0x10u
#define CCR3 0x14u
#define CSR 0x48u
#define CCR0_TE (1u << 4)
#define CSR_TDRE (1u << 29)
#define CSR_TEND (1u << 30)
#define TDR_UNWRITTEN 0xFFFFFFFFu /* the driver writes bytes: any value below 256 is a write */

static volatile uint32_t regs[0x100 / 4];
static int started;
static int tdr_full;
static uint8_t tdr_byte, shifting_byte;
static uint32_t shifting_ticks;

#define REG(offset) regs[(offset) / 4]

static void act_on_writes(void) {
    if (!started) {
        started = 1;
        REG(CSR) = CSR_TDRE | CSR_TEND;
        REG(TDR) = TDR_UNWRITTEN;
    }
    if (REG(TDR) != TDR_UNWRITTEN) {
        if (!(REG(CCR0) & CCR0_TE)) {
            model_misuse("TDR written with CCR0.TE off");
        }
        if (tdr_full) {
            model_misuse("TDR written while TDRE was clear: a byte overwritten");
        }
        tdr_byte = (uint8_t)REG(TDR);
        tdr_full = 1;
        REG(TDR) = TDR_UNWRITTEN;
        REG(CSR) &= ~(CSR_TDRE | CSR_TEND);
    }
}

static void tick(void) {
    ++model_now;
    if (shifting_ticks && --shifting_ticks == 0) {
        model_line_byte(shifting_byte);
        if (!tdr_full) {
            REG(CSR) |= CSR_TEND;
            model_complete_event();
        }
    }
    if (shifting_ticks == 0 && tdr_full) {
        shifting_byte = tdr_byte;
        shifting_ticks = MODEL_BYTE_TICKS;
        tdr_full = 0;
        REG(CSR) |= CSR_TDRE;
    }
}

volatile uint32_t *fg_model_reg32(uint32_t offset) {
    act_on_writes();
    tick();
    return &regs[offset / 4];
}

void model_reset_now(void);

void model_reset_requested(void) {
    act_on_writes();
    model_config("CCR0", REG(CCR0));
    model_config("CCR2", REG(CCR2));
    model_config("CCR3", REG(CCR3));
    model_cut((shifting_ticks ? 1u : 0u) + (tdr_full ? 1u : 0u));
    model_reset_now();
}
