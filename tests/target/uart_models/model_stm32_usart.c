/* STM32F7 USART (RM0385, USART chapter) transmission: writing TDR clears TXE and TC; TDR moves to the shift
 * register as soon as it is free, which sets TXE; TC is set when a frame's stop bit has gone out and TDR is empty.
 * ISR resets to TXE | TC. */
#include "uart_model.h"

#define CR1 0x00u
#define BRR 0x0Cu
#define ISR 0x1Cu
#define TDR 0x28u
#define ISR_TC (1u << 6)
#define ISR_TXE (1u << 7)

static volatile uint32_t regs[0x400 / 4];
static int started;

#define REG(offset) regs[(offset) / 4]

static void set_isr(uint32_t bits) { REG(ISR) |= bits; }
static void clear_isr(uint32_t bits) { REG(ISR) &= ~bits; }
static model_single_buffer tdr = {set_isr, clear_isr, ISR_TXE, ISR_TC, 0, 0, 0, 0};

static void act_on_writes(void) {
    if (!started) {
        started = 1;
        REG(ISR) = ISR_TXE | ISR_TC;
        REG(TDR) = MODEL_UNWRITTEN;
    }
    uint32_t written;
    if (model_register_written(&REG(TDR), &written)) {
        model_single_buffer_load(&tdr, (uint8_t)written, (REG(CR1) & 0x9u) == 0x9u, "TDR written with UE or TE off",
                                 "TDR written while TXE was clear: a byte overwritten");
    }
}

volatile uint32_t *fg_model_reg32(uint32_t offset) {
    act_on_writes();
    model_single_buffer_tick(&tdr);
    return &regs[offset / 4];
}

void model_reset_requested(void) {
    act_on_writes();
    model_config("BRR", REG(BRR));
    model_config("CR1", REG(CR1));
    model_cut(model_single_buffer_pending(&tdr));
    model_reset_now();
}
