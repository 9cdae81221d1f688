/* Nordic nRF52 UARTE (UART with EasyDMA). Polled, no interrupts. 8N1 at FG_UART_BAUD, TX on pin FG_UART_TX_PIN
 * and RX on FG_UART_RX_PIN of port 0 (RX pulled up), no flow control; with FG_UART_RTS_PIN, that pin is driven high
 * as a plain output: a J-Link OB samples it (its CTS) to decide whether the line uses flow control.
 * EasyDMA only reads and writes RAM, so bytes to send are staged in a small RAM buffer (they may come from flash)
 * and bytes arrive one at a time in a one-byte RAM buffer; bytes that arrive while the receiver is being restarted
 * wait in the UARTE's RX FIFO.
 * ENDTX fires when EasyDMA has handed the last byte of a buffer to the transmitter, as that byte starts going out:
 * fg_uart_flush() stops the transmitter (STOPTX) and waits for TXSTOPPED, which the UARTE raises once the byte on
 * the line has been sent, so that a reset that follows cannot cut it. */
#include "fg_port.h"

#if !defined(FG_UART_BASE) || !defined(FG_UART_BAUD) || !defined(FG_UART_CLOCK_HZ) || !defined(FG_UART_TX_PIN) || \
    !defined(FG_UART_RX_PIN)
#error "FG_UART_BASE, FG_UART_BAUD, FG_UART_CLOCK_HZ, FG_UART_TX_PIN and FG_UART_RX_PIN must be defined"
#endif

/* A host test of this driver defines UART_REG and GPIO_P0_REG to reach a model of the peripheral instead. */
#ifndef UART_REG
#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(FG_UART_BASE) + (offset)))
#endif
#define UARTE_TASKS_STARTRX UART_REG(0x000)
#define UARTE_TASKS_STARTTX UART_REG(0x008)
#define UARTE_TASKS_STOPTX UART_REG(0x00C)
#define UARTE_EVENTS_ENDRX UART_REG(0x110)
#define UARTE_EVENTS_ENDTX UART_REG(0x120)
#define UARTE_EVENTS_ERROR UART_REG(0x124)
#define UARTE_EVENTS_TXSTOPPED UART_REG(0x158)
#define UARTE_ERRORSRC UART_REG(0x480)
#define UARTE_ENABLE UART_REG(0x500)
#define UARTE_PSEL_RTS UART_REG(0x508)
#define UARTE_PSEL_TXD UART_REG(0x50C)
#define UARTE_PSEL_CTS UART_REG(0x510)
#define UARTE_PSEL_RXD UART_REG(0x514)
#define UARTE_BAUDRATE UART_REG(0x524)
#define UARTE_RXD_PTR UART_REG(0x534)
#define UARTE_RXD_MAXCNT UART_REG(0x538)
#define UARTE_TXD_PTR UART_REG(0x544)
#define UARTE_TXD_MAXCNT UART_REG(0x548)
#define UARTE_CONFIG UART_REG(0x56C)
#define UARTE_ENABLE_ENABLED 8u
#define PSEL_DISCONNECTED 0xFFFFFFFFu
/* The BAUDRATE values of the UARTE (nRF52840 Product Specification, UARTE BAUDRATE: 115200 -> 0x01D60000, actual
 * 115,108 baud). They are not the legacy UART's (0x01D7E000 for 115200, the plain baud x 2^32 / 16 MHz rounded to
 * 0x1000): the UARTE rounds differently, so its table is spelled out; other rates fail the build. */
#if (FG_UART_CLOCK_HZ) != 16000000u
#error "the nRF UARTE's baud generator runs from 16 MHz: uart.clock_hz must be 16_000_000"
#endif
#if (FG_UART_BAUD) == 9600u
#define UARTE_BAUDRATE_VALUE 0x00275000u
#elif (FG_UART_BAUD) == 19200u
#define UARTE_BAUDRATE_VALUE 0x004EA000u
#elif (FG_UART_BAUD) == 38400u
#define UARTE_BAUDRATE_VALUE 0x009D0000u
#elif (FG_UART_BAUD) == 57600u
#define UARTE_BAUDRATE_VALUE 0x00EB0000u
#elif (FG_UART_BAUD) == 115200u
#define UARTE_BAUDRATE_VALUE 0x01D60000u
#elif (FG_UART_BAUD) == 230400u
#define UARTE_BAUDRATE_VALUE 0x03B00000u
#elif (FG_UART_BAUD) == 460800u
#define UARTE_BAUDRATE_VALUE 0x07400000u
#elif (FG_UART_BAUD) == 921600u
#define UARTE_BAUDRATE_VALUE 0x0F000000u
#elif (FG_UART_BAUD) == 1000000u
#define UARTE_BAUDRATE_VALUE 0x10000000u
#else
#error "FG_UART_BAUD: the nRF UARTE supports 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000"
#endif

/* The P0 GPIO registers sit at FG_UART_GPIO_BASE + 0x500: 0x50000500 on the nRF52, 0x50842500 (Secure) on the
 * nRF5340's application core, whose board file sets uart.gpio_base. */
#ifndef FG_UART_GPIO_BASE
#define FG_UART_GPIO_BASE 0x50000000u
#endif
#ifndef GPIO_P0_REG
#define GPIO_P0_REG(offset) (*(volatile uint32_t *)((FG_UART_GPIO_BASE) + (offset)))
#endif
#define GPIO_OUTSET GPIO_P0_REG(0x508)
#define GPIO_PIN_CNF(pin) GPIO_P0_REG(0x700 + 4 * (pin))
#define PIN_CNF_OUTPUT 1u          /* DIR output, input buffer connected */
#define PIN_CNF_INPUT_PULLUP 0xCu  /* DIR input, input buffer connected, PULL = 3: pull-up */
#define PIN_CNF_OUTPUT_ONLY 3u     /* DIR output, input buffer disconnected */

#define TX_CHUNK 32u

static uint8_t tx_buffer[TX_CHUNK];
static volatile uint8_t rx_byte;
static int tx_started; /* STARTTX since the last STOPTX: the transmitter runs and must be stopped to drain */

static void start_receiving(void) {
    UARTE_EVENTS_ENDRX = 0;
    UARTE_TASKS_STARTRX = 1;
}

void fg_uart_init(void) {
    UARTE_ENABLE = 0;
    GPIO_OUTSET = 1u << FG_UART_TX_PIN; /* the idle line is high */
    GPIO_PIN_CNF(FG_UART_TX_PIN) = PIN_CNF_OUTPUT;
    GPIO_PIN_CNF(FG_UART_RX_PIN) = PIN_CNF_INPUT_PULLUP; /* an unconnected RX idles high, not floating */
#ifdef FG_UART_RTS_PIN
    GPIO_OUTSET = 1u << FG_UART_RTS_PIN;
    GPIO_PIN_CNF(FG_UART_RTS_PIN) = PIN_CNF_OUTPUT_ONLY;
#endif
    UARTE_PSEL_TXD = FG_UART_TX_PIN;
    UARTE_PSEL_RXD = FG_UART_RX_PIN;
    UARTE_PSEL_RTS = PSEL_DISCONNECTED;
    UARTE_PSEL_CTS = PSEL_DISCONNECTED;
    UARTE_BAUDRATE = UARTE_BAUDRATE_VALUE;
    UARTE_CONFIG = 0; /* no parity, one stop bit, no flow control */
    UARTE_ENABLE = UARTE_ENABLE_ENABLED;
    UARTE_RXD_PTR = (uint32_t)(uintptr_t)&rx_byte;
    UARTE_RXD_MAXCNT = 1;
    start_receiving();
}

void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    while (bytes > 0) {
        uint32_t chunk = bytes < TX_CHUNK ? (uint32_t)bytes : TX_CHUNK;
        for (uint32_t i = 0; i < chunk; ++i) {
            tx_buffer[i] = p[i];
        }
        UARTE_TXD_PTR = (uint32_t)(uintptr_t)tx_buffer;
        UARTE_TXD_MAXCNT = chunk;
        UARTE_EVENTS_ENDTX = 0;
        UARTE_TASKS_STARTTX = 1;
        tx_started = 1;
        while (!UARTE_EVENTS_ENDTX) { /* EasyDMA has read the buffer: it may be refilled */
        }
        p += chunk;
        bytes -= chunk;
    }
}

uint8_t fg_uart_read_byte(void) {
    while (!UARTE_EVENTS_ENDRX) {
        if (UARTE_EVENTS_ERROR) {
            UARTE_EVENTS_ERROR = 0;
            UARTE_ERRORSRC = UARTE_ERRORSRC; /* write-one-to-clear; the frame CRC catches the damaged byte */
        }
    }
    uint8_t byte = rx_byte;
    start_receiving();
    return byte;
}

/* ENDTX only says the last byte started: STOPTX lets the transmitter finish it, then raises TXSTOPPED. */
void fg_uart_flush(void) {
    if (!tx_started) {
        return;
    }
    UARTE_EVENTS_TXSTOPPED = 0;
    UARTE_TASKS_STOPTX = 1;
    while (!UARTE_EVENTS_TXSTOPPED) {
    }
    tx_started = 0;
}
