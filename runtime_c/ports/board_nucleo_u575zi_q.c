/* ST NUCLEO-U575ZI-Q set-up (TrustZone off, non-secure addresses): the core stays on the 4 MHz MSIS it resets to (no
 * PLL, so no flash wait states or voltage scaling to program); HSI16 is started as USART1's kernel clock, USART1 and
 * GPIOA get their bus clocks, and PA9 (TX) / PA10 (RX) are switched to AF7, the pins wired to the ST-LINK virtual COM
 * port. Register offsets from RM0456 (RCC, GPIO). */
#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define RCC_BASE 0x46020C00u
#define RCC_CR REG32(RCC_BASE + 0x000u)
#define RCC_AHB2ENR1 REG32(RCC_BASE + 0x08Cu)
#define RCC_APB2ENR REG32(RCC_BASE + 0x0A4u)
#define RCC_CCIPR1 REG32(RCC_BASE + 0x0E0u)
#define RCC_CR_HSION (1u << 8)
#define RCC_CR_HSIRDY (1u << 10)
#define RCC_AHB2ENR1_GPIOAEN (1u << 0)
#define RCC_APB2ENR_USART1EN (1u << 14)
#define USART1SEL_MASK 3u
#define USART1SEL_HSI16 2u
#define GPIOA_MODER REG32(0x42020000u)
#define GPIOA_OSPEEDR REG32(0x42020008u)
#define GPIOA_AFRH REG32(0x42020024u)
#define MODER_ALTERNATE 2u
#define OSPEED_MEDIUM 1u
#define AF7_USART1 7u
#define PIN_TX 9u
#define PIN_RX 10u

static void pin_to_alternate(uint32_t pin) {
    GPIOA_MODER = (GPIOA_MODER & ~(3u << (2 * pin))) | (MODER_ALTERNATE << (2 * pin));
    GPIOA_OSPEEDR = (GPIOA_OSPEEDR & ~(3u << (2 * pin))) | (OSPEED_MEDIUM << (2 * pin));
    GPIOA_AFRH = (GPIOA_AFRH & ~(0xFu << (4 * (pin - 8)))) | (AF7_USART1 << (4 * (pin - 8)));
}

void fg_board_init(void) {
    RCC_CR |= RCC_CR_HSION;
    while (!(RCC_CR & RCC_CR_HSIRDY)) {
    }
    RCC_CCIPR1 = (RCC_CCIPR1 & ~USART1SEL_MASK) | USART1SEL_HSI16;
    RCC_AHB2ENR1 |= RCC_AHB2ENR1_GPIOAEN;
    RCC_APB2ENR |= RCC_APB2ENR_USART1EN;
    (void)RCC_APB2ENR; /* read back: the clock is on before the first peripheral access */
    pin_to_alternate(PIN_TX);
    pin_to_alternate(PIN_RX);
}
