/* ARM PL011 transmission (PrimeCell UART (PL011) Technical Reference Manual, DDI 0183; the RP2040's UART0, RP2040
 * Datasheet 4.2): a write to DR queues a byte in the transmit FIFO (32 deep when LCR_H.FEN is set, else a one-byte
 * holding register); FR.TXFF is set while it is full; the transmitter takes bytes from it while CR.UARTEN and CR.TXE
 * are set; FR.BUSY is set from the moment the FIFO holds a byte until the last byte's stop bit has gone out, the
 * PL011's transmission-complete event. IBRD and FBRD take effect when LCR_H is written after them, and none of the
 * three may change while the UART is enabled. */
#include "uart_model.h"

#define DR 0x000u
#define FR 0x018u
#define IBRD 0x024u
#define FBRD 0x028u
#define LCR_H 0x02Cu
#define CR 0x030u
#define FR_BUSY (1u << 3)
#define FR_TXFF (1u << 5)
#define FR_TXFE (1u << 7)
#define LCR_H_FEN (1u << 4)
#define CR_UARTEN (1u << 0)
#define CR_TXE (1u << 8)
#define FIFO_DEPTH 32u

static volatile uint32_t regs[0x1000 / 4];
static int started;
static uint8_t fifo[FIFO_DEPTH];
static uint32_t fifo_head, fifo_count;
static uint8_t shifting_byte;
static uint32_t shifting_ticks;
static uint32_t ibrd, fbrd, lcr_h, latched_ibrd, latched_fbrd;
static int divisor_pending;

#define REG(offset) regs[(offset) / 4]

static uint32_t depth(void) { return (lcr_h & LCR_H_FEN) ? FIFO_DEPTH : 1u; }

static void update_flags(void) {
    uint32_t flags = 0;
    flags |= fifo_count >= depth() ? FR_TXFF : 0u;
    flags |= fifo_count == 0 ? FR_TXFE : 0u;
    flags |= (fifo_count || shifting_ticks) ? FR_BUSY : 0u;
    REG(FR) = flags;
}

/* A configuration register written since the last access: taken. */
static int taken(uint32_t offset, uint32_t *value) {
    if (!model_register_written(&REG(offset), value)) {
        return 0;
    }
    if (REG(CR) & CR_UARTEN) {
        model_misuse("IBRD, FBRD or LCR_H written while the UART is enabled");
    }
    return 1;
}

static void act_on_writes(void) {
    if (!started) {
        started = 1;
        REG(DR) = REG(IBRD) = REG(FBRD) = REG(LCR_H) = MODEL_UNWRITTEN;
    }
    divisor_pending |= taken(IBRD, &ibrd) | taken(FBRD, &fbrd);
    if (taken(LCR_H, &lcr_h)) {
        latched_ibrd = ibrd;
        latched_fbrd = fbrd;
        divisor_pending = 0;
    }
    uint32_t written;
    if (model_register_written(&REG(DR), &written)) {
        if (fifo_count >= depth()) {
            model_misuse("DR written while TXFF was set: a byte lost");
        } else {
            fifo[(fifo_head + fifo_count++) % FIFO_DEPTH] = (uint8_t)written;
        }
    }
    update_flags();
}

static void tick(void) {
    ++model_now;
    if (shifting_ticks && --shifting_ticks == 0) {
        model_line_byte(shifting_byte);
        if (fifo_count == 0) {
            model_complete_event(); /* BUSY clears */
        }
    }
    if (shifting_ticks == 0 && fifo_count && (REG(CR) & (CR_UARTEN | CR_TXE)) == (CR_UARTEN | CR_TXE)) {
        if (divisor_pending) {
            model_misuse("transmitting with IBRD/FBRD written but not latched by an LCR_H write");
        }
        shifting_byte = fifo[fifo_head];
        fifo_head = (fifo_head + 1u) % FIFO_DEPTH;
        --fifo_count;
        shifting_ticks = MODEL_BYTE_TICKS;
    }
    update_flags();
}

volatile uint32_t *fg_model_reg32(uint32_t offset) {
    act_on_writes();
    tick();
    return &regs[offset / 4];
}

void model_reset_requested(void) {
    act_on_writes();
    model_config("IBRD", latched_ibrd);
    model_config("FBRD", latched_fbrd);
    model_config("LCR_H", lcr_h);
    model_config("CR", REG(CR));
    model_cut((shifting_ticks ? 1u : 0u) + fifo_count);
    model_reset_now();
}
