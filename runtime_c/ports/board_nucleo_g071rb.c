/* ST NUCLEO-G071RB set-up: the core stays on the clock it resets to, HSI16 with HSIDIV = 1 (SYSCLK = HCLK = PCLK =
 * 16 MHz, zero flash wait states; RM0444 rev 5, "RCC": reset values of RCC_CR and RCC_CFGR); USART2 gets its clock
 * and PA2 (TX) / PA3 (RX) are switched to AF1 (DS12232, alternate function table), the pins wired to the ST-LINK
 * virtual COM port (UM2324, "USART virtual communication"). Main flash is aliased at 0x00000000 when booting from
 * it, so the vectors fetched at reset are the image's (linked at 0x08000000): no VTOR write needed. */
#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define RCC_IOPENR REG32(0x40021034u)  /* RM0444: RCC base 0x4002 1000, IOPENR at 0x34 */
#define RCC_APBENR1 REG32(0x4002103Cu) /* APBENR1 at 0x3C */
#define RCC_IOPENR_GPIOAEN (1u << 0)
#define RCC_APBENR1_USART2EN (1u << 17)
#define GPIOA_MODER REG32(0x50000000u) /* GPIOA on the IOPORT bus at 0x5000 0000 */
#define GPIOA_OSPEEDR REG32(0x50000008u)
#define GPIOA_AFRL REG32(0x50000020u)
#define MODER_ALTERNATE 2u
#define OSPEED_MEDIUM 1u
#define AF1_USART2 1u
#define PIN_TX 2u
#define PIN_RX 3u

static void pin_to_alternate(uint32_t pin) {
    GPIOA_MODER = (GPIOA_MODER & ~(3u << (2 * pin))) | (MODER_ALTERNATE << (2 * pin));
    GPIOA_OSPEEDR = (GPIOA_OSPEEDR & ~(3u << (2 * pin))) | (OSPEED_MEDIUM << (2 * pin));
    GPIOA_AFRL = (GPIOA_AFRL & ~(0xFu << (4 * pin))) | (AF1_USART2 << (4 * pin));
}

void fg_board_init(void) {
    RCC_IOPENR |= RCC_IOPENR_GPIOAEN;
    RCC_APBENR1 |= RCC_APBENR1_USART2EN;
    (void)RCC_APBENR1; /* read back: the clock is on before the first peripheral access */
    pin_to_alternate(PIN_TX);
    pin_to_alternate(PIN_RX);
}
