/* Kinetis K64 UART0 (K64P144M120SF5RM, UART chapter), FIFOs off: writing D (after reading S1 with TDRE set) fills
 * the one-byte transmit buffer and clears TDRE and TC; the buffer moves to the shift register when it is free,
 * which sets TDRE; TC is set when the stop bit of the last byte has gone out and the buffer is empty. In the test
 * the driver only transmits, so every access to D is a write. */
#include "uart_model.h"

#define BDH 0x0u
#define BDL 0x1u
#define C2 0x3u
#define S1 0x4u
#define D 0x7u
#define C4 0xAu
#define S1_TC (1u << 6)
#define S1_TDRE (1u << 7)
#define C2_TE (1u << 3)

static volatile uint8_t regs[0x20];
static int started, d_handed_out, buffer_full;
static uint8_t buffer_byte, shifting_byte;
static uint32_t shifting_ticks;

static void act_on_writes(void) {
    if (!started) {
        started = 1;
        regs[S1] = S1_TDRE | S1_TC;
    }
    if (d_handed_out) {
        d_handed_out = 0;
        if (!(regs[C2] & C2_TE)) {
            model_misuse("D written with the transmitter off");
        }
        if (buffer_full) {
            model_misuse("D written while TDRE was clear: a byte overwritten");
        }
        buffer_byte = regs[D];
        buffer_full = 1;
        regs[S1] &= (uint8_t)~(S1_TDRE | S1_TC);
    }
}

static void tick(void) {
    ++model_now;
    if (shifting_ticks && --shifting_ticks == 0) {
        model_line_byte(shifting_byte);
        if (!buffer_full) {
            regs[S1] |= S1_TC;
            model_complete_event();
        }
    }
    if (shifting_ticks == 0 && buffer_full) {
        shifting_byte = buffer_byte;
        shifting_ticks = MODEL_BYTE_TICKS;
        buffer_full = 0;
        regs[S1] |= S1_TDRE;
    }
}

volatile uint8_t *fg_model_reg8(uint32_t offset) {
    act_on_writes();
    tick();
    d_handed_out = offset == D;
    return &regs[offset];
}

void model_reset_now(void);

void model_reset_requested(void) {
    act_on_writes();
    model_config("SBR", (uint32_t)(regs[BDH] & 0x1Fu) << 8 | regs[BDL]);
    model_config("BRFA", regs[C4] & 0x1Fu);
    model_config("C2", regs[C2]);
    model_cut((shifting_ticks ? 1u : 0u) + (buffer_full ? 1u : 0u));
    model_reset_now();
}
