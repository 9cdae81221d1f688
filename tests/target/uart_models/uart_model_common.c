#include <string.h>

#include "uart_model.h"

uint64_t model_now;
static uint8_t line[MODEL_MAX_LINE];
static uint32_t line_bytes;
static uint64_t last_byte_at, complete_event_at, reset_at;
static uint32_t cut_bytes;
static int reset_done;
static char misuses[1024];
static char config[1024];

void model_line_byte(uint8_t byte) {
    if (line_bytes < MODEL_MAX_LINE) {
        line[line_bytes++] = byte;
    }
    last_byte_at = model_now;
}

void model_complete_event(void) { complete_event_at = model_now; }

void model_misuse(const char *what) {
    if (strstr(misuses, what) == NULL && strlen(misuses) + strlen(what) + 2 < sizeof misuses) {
        strcat(misuses, what);
        strcat(misuses, ";");
    }
}

void model_cut(uint32_t bytes) { cut_bytes += bytes; }

void model_config(const char *name, uint32_t value) {
    char item[64];
    snprintf(item, sizeof item, "%s=0x%08X ", name, (unsigned)value);
    if (strlen(config) + strlen(item) < sizeof config) {
        strcat(config, item);
    }
}

void model_reset_now(void) {
    reset_at = model_now;
    reset_done = 1;
}

int model_register_written(volatile uint32_t *reg, uint32_t *value) {
    if (*reg == MODEL_UNWRITTEN) {
        return 0;
    }
    *value = *reg;
    *reg = MODEL_UNWRITTEN;
    return 1;
}

void model_single_buffer_load(model_single_buffer *tx, uint8_t byte, int enabled, const char *off,
                              const char *overwritten) {
    if (!enabled) {
        model_misuse(off);
    }
    if (tx->full) {
        model_misuse(overwritten);
    }
    tx->byte = byte;
    tx->full = 1;
    tx->clear_status(tx->empty | tx->complete);
}

void model_single_buffer_tick(model_single_buffer *tx) {
    ++model_now;
    if (tx->shifting_ticks && --tx->shifting_ticks == 0) {
        model_line_byte(tx->shifting_byte);
        if (!tx->full) {
            tx->set_status(tx->complete);
            model_complete_event();
        }
    }
    if (tx->shifting_ticks == 0 && tx->full) {
        tx->shifting_byte = tx->byte;
        tx->shifting_ticks = MODEL_BYTE_TICKS;
        tx->full = 0;
        tx->set_status(tx->empty);
    }
}

uint32_t model_single_buffer_pending(const model_single_buffer *tx) {
    return (tx->shifting_ticks ? 1u : 0u) + (tx->full ? 1u : 0u);
}

void model_report(FILE *out) {
    fprintf(out, "config %s\n", config);
    fprintf(out, "line ");
    for (uint32_t i = 0; i < line_bytes; ++i) {
        fprintf(out, "%02x", line[i]);
    }
    fprintf(out, "\ncut %u\n", (unsigned)cut_bytes);
    fprintf(out, "last_byte_at %llu\ncomplete_event_at %llu\nreset_at %llu\nreset %d\n",
            (unsigned long long)last_byte_at, (unsigned long long)complete_event_at, (unsigned long long)reset_at,
            reset_done);
    fprintf(out, "misuse %s\n", misuses);
}

/* The accessors a model's peripheral does not have: a driver using one is misusing it. Each model defines the ones
 * it has, which take the place of these. */
static volatile uint32_t no_register;

__attribute__((weak)) volatile uint32_t *fg_model_reg32(uint32_t offset) {
    (void)offset;
    model_misuse("32-bit access to a peripheral the model gives none");
    return &no_register;
}

__attribute__((weak)) volatile uint32_t *fg_model_gpio_reg32(uint32_t offset) {
    (void)offset;
    model_misuse("GPIO access from the UART driver");
    return &no_register;
}

__attribute__((weak)) volatile uint8_t *fg_model_reg8(uint32_t offset) {
    (void)offset;
    model_misuse("8-bit access to a peripheral the model gives none");
    return (volatile uint8_t *)&no_register;
}
