/* ST NUCLEO-F746ZG set-up: the core stays on the 16 MHz HSI it resets to (no PLL, so no flash wait states or
 * voltage scaling to program); USART3 gets its clock and PD8 (TX) / PD9 (RX) are switched to AF7, the pins wired to
 * the ST-LINK virtual COM port. */
#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define SCB_VTOR REG32(0xE000ED08u)
#define FLASH_AXIM_BASE 0x08000000u /* where the image is linked (boards/nucleo_f746zg.toml) */
#define RCC_AHB1ENR REG32(0x40023830u)
#define RCC_APB1ENR REG32(0x40023840u)
#define RCC_AHB1ENR_GPIODEN (1u << 3)
#define RCC_APB1ENR_USART3EN (1u << 18)
#define GPIOD_MODER REG32(0x40020C00u)
#define GPIOD_OSPEEDR REG32(0x40020C08u)
#define GPIOD_AFRH REG32(0x40020C24u)
#define MODER_ALTERNATE 2u
#define OSPEED_MEDIUM 1u
#define AF7_USART3 7u
#define PIN_TX 8u
#define PIN_RX 9u

static void pin_to_alternate(uint32_t pin) {
    GPIOD_MODER = (GPIOD_MODER & ~(3u << (2 * pin))) | (MODER_ALTERNATE << (2 * pin));
    GPIOD_OSPEEDR = (GPIOD_OSPEEDR & ~(3u << (2 * pin))) | (OSPEED_MEDIUM << (2 * pin));
    GPIOD_AFRH = (GPIOD_AFRH & ~(0xFu << (4 * (pin - 8)))) | (AF7_USART3 << (4 * (pin - 8)));
}

void fg_board_init(void) {
    SCB_VTOR = FLASH_AXIM_BASE;
    RCC_AHB1ENR |= RCC_AHB1ENR_GPIODEN;
    RCC_APB1ENR |= RCC_APB1ENR_USART3EN;
    (void)RCC_APB1ENR; /* read back: the clock is on before the first peripheral access (errata 2.1.13) */
    pin_to_alternate(PIN_TX);
    pin_to_alternate(PIN_RX);
}
