#include "selftest_probes.h"

#include "fg_protocol.h"

extern uint8_t __fg_data_start[], __fg_data_end[];
extern uint8_t __fg_bss_start[], __fg_bss_end[];
extern uint8_t __fg_pool_start[], __fg_pool_end[];
extern uint8_t __fg_stack_bottom[], __fg_stack_top[];

#define PATTERN 0xA5C3F00Fu

static void check_word(fg_memtest_result *result, volatile uint32_t *word, uint32_t expected) {
    uint32_t read = *word;
    if (read != expected && result->status == 0) {
        result->status = 1;
        result->address = (uint32_t)(uintptr_t)word;
        result->read = read;
        result->expected = expected;
    }
}

/* One piece of a range that holds none of the firmware's own memory: address-in-address, then its complement. */
static void test_piece(fg_memtest_result *result, uint32_t start, uint32_t end) {
    start = (start + 3u) & ~3u;
    end &= ~3u;
    if (end <= start) {
        return;
    }
    volatile uint32_t *first = (volatile uint32_t *)(uintptr_t)start;
    uint32_t words = (end - start) / 4u;
    for (uint32_t i = 0; i < words; ++i) {
        first[i] = (start + 4u * i) ^ PATTERN;
    }
    for (uint32_t i = 0; i < words; ++i) {
        check_word(result, first + i, (start + 4u * i) ^ PATTERN);
        first[i] = ~((start + 4u * i) ^ PATTERN);
    }
    for (uint32_t i = 0; i < words; ++i) {
        check_word(result, first + i, ~((start + 4u * i) ^ PATTERN));
    }
    result->tested += end - start;
}

fg_memtest_result fg_memtest(uint32_t start, uint32_t bytes) {
    /* The firmware's own memory, which the test must not overwrite, as [begin, end) pairs. */
    const uint32_t own[4][2] = {
        {(uint32_t)(uintptr_t)__fg_stack_bottom, (uint32_t)(uintptr_t)__fg_stack_top},
        {(uint32_t)(uintptr_t)__fg_data_start, (uint32_t)(uintptr_t)__fg_data_end},
        {(uint32_t)(uintptr_t)__fg_pool_start, (uint32_t)(uintptr_t)__fg_pool_end},
        {(uint32_t)(uintptr_t)__fg_bss_start, (uint32_t)(uintptr_t)__fg_bss_end},
    };
    fg_memtest_result result = {0, 0, 0, 0, 0};
    uint64_t end = (uint64_t)start + bytes;
    uint64_t at = start;
    while (at < end) {
        uint64_t piece_end = end;
        uint64_t skip_to = end;
        for (int i = 0; i < 4; ++i) { /* the first own block at or after `at` ends this piece */
            if (own[i][1] > at && own[i][0] < piece_end && own[i][1] > own[i][0]) {
                piece_end = own[i][0] > at ? own[i][0] : at;
                skip_to = own[i][1];
            }
        }
        test_piece(&result, (uint32_t)at, (uint32_t)(piece_end < end ? piece_end : end));
        at = skip_to > piece_end ? skip_to : end;
    }
    return result;
}

/* The probes are hand-encoded (.inst.w) so that they assemble for every core: whether they run is the question. */
__attribute__((naked)) static uint32_t fpu_probe(void) {
    __asm__ volatile(
        "ldr r0, =0x3FC00000\n\t" /* 1.5f */
        "ldr r1, =0x40000000\n\t" /* 2.0f */
        ".inst.w 0xEE000A10\n\t"  /* vmov s0, r0 */
        ".inst.w 0xEE001A90\n\t"  /* vmov s1, r1 */
        ".inst.w 0xEE201A20\n\t"  /* vmul.f32 s2, s0, s1 */
        ".inst.w 0xEE311A00\n\t"  /* vadd.f32 s2, s2, s0 */
        ".inst.w 0xEE110A10\n\t"  /* vmov r0, s2 */
        "bx lr\n\t"
        ".ltorg\n\t");
}

__attribute__((naked)) static uint32_t dsp_probe(void) {
    __asm__ volatile(
        "ldr r1, =0x00030002\n\t"
        "ldr r2, =0x00050004\n\t"
        ".inst.w 0xFA91F002\n\t" /* sadd16 r0, r1, r2: 0x00080006 */
        ".inst.w 0xFA2FF180\n\t" /* sxtb16 r1, r0: 0x00080006 */
        ".inst.w 0xFB210002\n\t" /* smlad r0, r1, r2, r0: 6 x 4 + 8 x 5 + 0x00080006 */
        "bx lr\n\t"
        ".ltorg\n\t");
}

__attribute__((naked)) static uint32_t mve_probe(void) {
    __asm__ volatile(
        "movs r0, #3\n\t"
        "movs r1, #5\n\t"
        ".inst.w 0xEEE00B10\n\t" /* vdup.8 q0, r0 */
        ".inst.w 0xEEE21B10\n\t" /* vdup.8 q1, r1 */
        ".inst.w 0xEEF00F02\n\t" /* vmlav.s8 r0, q0, q1 */
        "bx lr\n\t");
}

uint32_t fg_feature_probe(uint32_t feature) {
    switch (feature) {
    case FG_FEATURE_FPU:
        return fpu_probe();
    case FG_FEATURE_DSP:
        return dsp_probe();
    case FG_FEATURE_MVE:
        return mve_probe();
    default:
        return 0xFFFFFFFFu;
    }
}
