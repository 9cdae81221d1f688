/* Register-level models of the real boards' UART peripherals, for host tests of runtime_c/ports/uart_*.c.
 *
 * The driver under test is compiled for the host with its register accessor (UART_REG / UART_REG8, GPIO_P0_REG)
 * defined as a call into the model, which hands out the address of a stand-in register block. Every register
 * access is one tick of model time: the model first acts on what the driver wrote since the last access (a task
 * triggered, a data register filled, an event cleared), then moves the transmitter on (a byte takes
 * MODEL_BYTE_TICKS ticks on the line) and raises the peripheral's events when its reference manual says it does.
 * model_reset_requested() stands for the SYSRESETREQ write that ends a real-board run (fg_exit): whatever is still
 * on the line then is cut. model_report() prints what reached the line and when, for tests/target/test_uart_models.py. */
#ifndef UART_MODEL_H
#define UART_MODEL_H

#include <stdint.h>
#include <stdio.h>

#define MODEL_BYTE_TICKS 40u /* 10 bit times of 4 ticks: start bit, 8 data bits, stop bit */
#define MODEL_MAX_LINE 4096u

volatile uint32_t *fg_model_reg32(uint32_t offset);     /* nRF UARTE, STM32 USART */
volatile uint32_t *fg_model_gpio_reg32(uint32_t offset); /* nRF GPIO P0 */
volatile uint8_t *fg_model_reg8(uint32_t offset);       /* Kinetis UART */

void model_reset_requested(void);
void model_report(FILE *out);

/* Shared by the models (uart_model_common.c): the line, the clock, the misuses found. */
extern uint64_t model_now;
void model_line_byte(uint8_t byte);       /* a byte's stop bit has been sent */
void model_complete_event(void);          /* the peripheral raised its transmission-complete event */
void model_misuse(const char *what);      /* the driver did something the manual forbids */
void model_cut(uint32_t bytes);           /* bytes still on the line or queued when the reset came */
void model_config(const char *name, uint32_t value); /* a register value after init, for the report */
void model_reset_now(void);               /* the reset itself, once the model has acted on the last accesses */

/* A register whose writes the model acts on holds MODEL_UNWRITTEN (a value the driver never writes) until the driver
 * writes it: whether it was written since the last call, the value then in *value and the register unwritten again. */
#define MODEL_UNWRITTEN 0xFFFFFFFFu
int model_register_written(volatile uint32_t *reg, uint32_t *value);

/* A transmitter with one buffer register before its shift register (STM32 USART, Renesas SCI_B, Kinetis UART with
 * its FIFO off): loading the buffer clears the `empty` and `complete` status bits; the byte moves to the shift
 * register as soon as that is free, which sets `empty`; `complete` is set when a frame's stop bit has gone out and
 * the buffer is empty. The model keeps the status register and gives its set/clear. */
typedef struct {
    void (*set_status)(uint32_t bits);
    void (*clear_status)(uint32_t bits);
    uint32_t empty, complete;
    int full;
    uint8_t byte, shifting_byte;
    uint32_t shifting_ticks;
} model_single_buffer;

/* The driver wrote `byte` to the buffer; `enabled`: the transmitter was on, or `off` is a misuse. */
void model_single_buffer_load(model_single_buffer *tx, uint8_t byte, int enabled, const char *off,
                              const char *overwritten);
void model_single_buffer_tick(model_single_buffer *tx); /* one tick of model time */
uint32_t model_single_buffer_pending(const model_single_buffer *tx); /* bytes a reset would cut */

#endif /* UART_MODEL_H */
