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
static int started, d_handed_out;

static void set_s1(uint32_t bits) { regs[S1] |= (uint8_t)bits; }
static void clear_s1(uint32_t bits) { regs[S1] &= (uint8_t)~bits; }
static model_single_buffer d = {set_s1, clear_s1, S1_TDRE, S1_TC, 0, 0, 0, 0};

static void act_on_writes(void) {
    if (!started) {
        started = 1;
        regs[S1] = S1_TDRE | S1_TC;
    }
    if (d_handed_out) {
        d_handed_out = 0;
        model_single_buffer_load(&d, regs[D], (regs[C2] & C2_TE) != 0, "D written with the transmitter off",
                                 "D written while TDRE was clear: a byte overwritten");
    }
}

volatile uint8_t *fg_model_reg8(uint32_t offset) {
    act_on_writes();
    model_single_buffer_tick(&d);
    d_handed_out = offset == D;
    return &regs[offset];
}

void model_reset_requested(void) {
    act_on_writes();
    model_config("SBR", (uint32_t)(regs[BDH] & 0x1Fu) << 8 | regs[BDL]);
    model_config("BRFA", regs[C4] & 0x1Fu);
    model_config("C2", regs[C2]);
    model_cut(model_single_buffer_pending(&d));
    model_reset_now();
}
