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

/* The models call this from model_reset_requested() once they have acted on the last accesses. */
void model_reset_now(void);
void model_reset_now(void) {
    reset_at = model_now;
    reset_done = 1;
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
