/* nRF52840 UARTE0 and GPIO P0, as the nRF52840 Product Specification (UARTE chapter) describes transmission:
 * STARTTX starts EasyDMA on TXD.PTR/TXD.MAXCNT; ENDTX is raised when the last byte of the buffer has been handed to
 * the transmitter (it starts going out then, as Nordic's own model has it); STOPTX stops the transmitter after the
 * byte on the line, then TXSTOPPED is raised (bytes not yet sent are dropped, and ENDTX is raised if it was not). */
#include "uart_model.h"

#define TASKS_STARTRX 0x000u
#define TASKS_STARTTX 0x008u
#define TASKS_STOPTX 0x00Cu
#define EVENTS_ENDTX 0x120u
#define EVENTS_TXSTARTED 0x150u
#define EVENTS_TXSTOPPED 0x158u
#define ENABLE 0x500u
#define PSEL_RTS 0x508u
#define PSEL_TXD 0x50Cu
#define PSEL_RXD 0x514u
#define BAUDRATE 0x524u
#define TXD_PTR 0x544u
#define TXD_MAXCNT 0x548u
#define CONFIG 0x56Cu
#define GPIO_OUT 0x504u
#define GPIO_OUTSET 0x508u
#define GPIO_PIN_CNF0 0x700u

static volatile uint32_t regs[0x1000 / 4];
static volatile uint32_t gpio[0x1000 / 4];
static const uint8_t *dma_next; /* the next byte EasyDMA reads */
static uint32_t dma_left;
static int running, stopping;
static uint32_t shifting_ticks; /* ticks left of the byte on the line, 0: idle */
static uint8_t shifting_byte;

#define REG(offset) regs[(offset) / 4]

static void act_on_writes(void) {
    if (gpio[GPIO_OUTSET / 4]) {
        gpio[GPIO_OUT / 4] |= gpio[GPIO_OUTSET / 4];
        gpio[GPIO_OUTSET / 4] = 0;
    }
    REG(TASKS_STARTRX) = 0;
    if (REG(TASKS_STARTTX)) {
        REG(TASKS_STARTTX) = 0;
        if (REG(ENABLE) != 8u) {
            model_misuse("STARTTX with the UARTE disabled");
        }
        if (dma_left) {
            model_misuse("STARTTX while EasyDMA still reads the previous buffer");
        }
        dma_next = (const uint8_t *)(uintptr_t)REG(TXD_PTR);
        dma_left = REG(TXD_MAXCNT);
        running = 1;
        REG(EVENTS_TXSTARTED) = 1;
    }
    if (REG(TASKS_STOPTX)) {
        REG(TASKS_STOPTX) = 0;
        stopping = running;
        if (!running) {
            REG(EVENTS_TXSTOPPED) = 1; /* an idle transmitter stops at once */
        }
    }
}

static void tick(void) {
    ++model_now;
    if (shifting_ticks && --shifting_ticks == 0) {
        model_line_byte(shifting_byte);
    }
    if (shifting_ticks == 0 && stopping) {
        if (dma_left) {
            model_cut(dma_left);
            dma_left = 0;
            REG(EVENTS_ENDTX) = 1;
        }
        running = stopping = 0;
        REG(EVENTS_TXSTOPPED) = 1;
        model_complete_event();
        return;
    }
    if (shifting_ticks == 0 && running && dma_left) {
        shifting_byte = *dma_next++;
        shifting_ticks = MODEL_BYTE_TICKS;
        if (--dma_left == 0) {
            REG(EVENTS_ENDTX) = 1; /* the last byte has started */
        }
    }
}

volatile uint32_t *fg_model_reg32(uint32_t offset) {
    act_on_writes();
    tick();
    return &regs[offset / 4];
}

volatile uint32_t *fg_model_gpio_reg32(uint32_t offset) {
    act_on_writes();
    tick();
    return &gpio[offset / 4];
}

void model_reset_requested(void) {
    act_on_writes();
    model_config("BAUDRATE", REG(BAUDRATE));
    model_config("CONFIG", REG(CONFIG));
    model_config("PSEL.TXD", REG(PSEL_TXD));
    model_config("PSEL.RXD", REG(PSEL_RXD));
    model_config("PSEL.RTS", REG(PSEL_RTS));
    model_config("OUT", gpio[GPIO_OUT / 4]);
    static const uint32_t console_pins[] = {5, 6, 7, 8, 19, 20, 21, 22}; /* the nRF52840-DK's and the nRF5340 DK's */
    for (uint32_t i = 0; i < sizeof console_pins / sizeof console_pins[0]; ++i) {
        char name[16];
        snprintf(name, sizeof name, "PIN_CNF[%u]", (unsigned)console_pins[i]);
        model_config(name, gpio[(GPIO_PIN_CNF0 + 4 * console_pins[i]) / 4]);
    }
    model_cut((shifting_ticks ? 1u : 0u) + dma_left);
    model_reset_now();
}
