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

static volatile uint32_t regs[0x100 / 4];
static int started;

#define REG(offset) regs[(offset) / 4]

static void set_csr(uint32_t bits) { REG(CSR) |= bits; }
static void clear_csr(uint32_t bits) { REG(CSR) &= ~bits; }
static model_single_buffer tdr = {set_csr, clear_csr, CSR_TDRE, CSR_TEND, 0, 0, 0, 0};

static void act_on_writes(void) {
    if (!started) {
        started = 1;
        REG(CSR) = CSR_TDRE | CSR_TEND;
        REG(TDR) = MODEL_UNWRITTEN;
    }
    uint32_t written;
    if (model_register_written(&REG(TDR), &written)) {
        model_single_buffer_load(&tdr, (uint8_t)written, (REG(CCR0) & CCR0_TE) != 0, "TDR written with CCR0.TE off",
                                 "TDR written while TDRE was clear: a byte overwritten");
    }
}

volatile uint32_t *fg_model_reg32(uint32_t offset) {
    act_on_writes();
    model_single_buffer_tick(&tdr);
    return &regs[offset / 4];
}

void model_reset_requested(void) {
    act_on_writes();
    model_config("CCR0", REG(CCR0));
    model_config("CCR2", REG(CCR2));
    model_config("CCR3", REG(CCR3));
    model_cut(model_single_buffer_pending(&tdr));
    model_reset_now();
}
