/* The register accessor of model_rp2040.c, which a host build of board_rp2040_pico.c reaches through REG32. */
#ifndef RP2040_MODEL_H
#define RP2040_MODEL_H

#include <stdint.h>

volatile uint32_t *fg_model_reg(uint32_t address);

#endif /* RP2040_MODEL_H */
