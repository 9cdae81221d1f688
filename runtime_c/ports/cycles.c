/* Cycle counting: DWT CYCCNT when it counts (real silicon), else SysTick on the processor clock, extended to 64
 * bits by counting its wraps in the SysTick interrupt. QEMU models no DWT cycle counter (CYCCNT reads 0), and its
 * SysTick is only repeatable under -icount. */
#include "fg_port.h"

#define REG32(address) (*(volatile uint32_t *)(address))
#define DEMCR REG32(0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL REG32(0xE0001000u)
#define DWT_CYCCNT REG32(0xE0001004u)
#define DWT_LAR REG32(0xE0001FB0u)
#define DWT_CTRL_CYCCNTENA (1u << 0)
#define SYST_CSR REG32(0xE000E010u)
#define SYST_RVR REG32(0xE000E014u)
#define SYST_CVR REG32(0xE000E018u)
#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE_CPU (1u << 2)
#define ICSR REG32(0xE000ED04u)
#define ICSR_PENDSTCLR (1u << 25)
#define SYSTICK_BITS 24
#define SYSTICK_MASK ((1u << SYSTICK_BITS) - 1u)

#ifndef FG_PREFER_DWT
#define FG_PREFER_DWT 1
#endif

static int counter_kind;
static volatile uint32_t systick_wraps;
static uint32_t dwt_last;
static uint64_t dwt_high;

void SysTick_Handler(void) { systick_wraps = systick_wraps + 1u; }

static int dwt_counts(void) {
    DEMCR |= DEMCR_TRCENA;
    DWT_LAR = 0xC5ACCE55u; /* unlocks the DWT on cores that have a lock (Cortex-M7) */
    DWT_CYCCNT = 0;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    uint32_t before = DWT_CYCCNT;
    for (volatile int i = 0; i < 4; ++i) {
    }
    return DWT_CYCCNT != before;
}

int fg_cycles_init(void) {
    if (FG_PREFER_DWT && dwt_counts()) {
        counter_kind = FG_COUNTER_DWT;
    } else {
        counter_kind = FG_COUNTER_SYSTICK;
        SYST_RVR = SYSTICK_MASK;
        SYST_CVR = 0;
        SYST_CSR = SYST_CSR_CLKSOURCE_CPU | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
    }
    fg_cycles_restart();
    return counter_kind;
}

void fg_cycles_restart(void) {
    __asm__ volatile("cpsid i" ::: "memory");
    if (counter_kind == FG_COUNTER_DWT) {
        DWT_CYCCNT = 0;
        dwt_last = 0;
        dwt_high = 0;
    } else {
        SYST_CVR = 0; /* clears the count; it reloads on the next tick */
        ICSR = ICSR_PENDSTCLR;
        systick_wraps = 0;
    }
    __asm__ volatile("cpsie i" ::: "memory");
}

uint64_t fg_cycles_now(void) {
    if (counter_kind == FG_COUNTER_DWT) {
        uint32_t now = DWT_CYCCNT; /* 32 bits: extended on each read, so reads must come more often than wraps */
        if (now < dwt_last) {
            dwt_high += (uint64_t)1 << 32;
        }
        dwt_last = now;
        return dwt_high | now;
    }
    uint32_t wraps;
    uint32_t value;
    do {
        wraps = systick_wraps;
        value = SYST_CVR;
    } while (wraps != systick_wraps);
    /* SysTick counts down; right after a restart it reads 0 until the first tick reloads it. */
    return ((uint64_t)wraps << SYSTICK_BITS) + (((SYSTICK_MASK + 1u) - value) & SYSTICK_MASK);
}
