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
#define TDR_UNWRITTEN 0xFFFFFFFFu /* the driver writes bytes: any value below 256 is a write */

static volatile uint32_t regs[0x400 / 4];
static int started;
static int tdr_full;
static uint8_t tdr_byte, shifting_byte;
static uint32_t shifting_ticks;

#define REG(offset) regs[(offset) / 4]

static void act_on_writes(void) {
    if (!started) {
        started = 1;
        REG(ISR) = ISR_TXE | ISR_TC;
        REG(TDR) = TDR_UNWRITTEN;
    }
    if (REG(TDR) != TDR_UNWRITTEN) {
        if ((REG(CR1) & 0x9u) != 0x9u) {
            model_misuse("TDR written with UE or TE off");
        }
        if (tdr_full) {
            model_misuse("TDR written while TXE was clear: a byte overwritten");
        }
        tdr_byte = (uint8_t)REG(TDR);
        tdr_full = 1;
        REG(TDR) = TDR_UNWRITTEN;
        REG(ISR) &= ~(ISR_TXE | ISR_TC);
    }
}

static void tick(void) {
    ++model_now;
    if (shifting_ticks && --shifting_ticks == 0) {
        model_line_byte(shifting_byte);
        if (!tdr_full) {
            REG(ISR) |= ISR_TC;
            model_complete_event();
        }
    }
    if (shifting_ticks == 0 && tdr_full) {
        shifting_byte = tdr_byte;
        shifting_ticks = MODEL_BYTE_TICKS;
        tdr_full = 0;
        REG(ISR) |= ISR_TXE;
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
    model_config("BRR", REG(BRR));
    model_config("CR1", REG(CR1));
    model_cut((shifting_ticks ? 1u : 0u) + (tdr_full ? 1u : 0u));
    model_reset_now();
}
