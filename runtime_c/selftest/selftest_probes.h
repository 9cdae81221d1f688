/* What the self-test firmware measures (selftest_probes.c): RAM ranges, CPU feature probes. */
#ifndef FG_SELFTEST_PROBES_H
#define FG_SELFTEST_PROBES_H

#include <stdint.h>

typedef struct {
    uint32_t tested;   /* bytes written and read back */
    uint32_t status;   /* 0: every word read back as written; 1: one did not */
    uint32_t address;  /* the first word that did not */
    uint32_t read;
    uint32_t expected;
} fg_memtest_result;

/* Tests [start, start + bytes) word by word with two address-dependent patterns (catching stuck bits and
 * addresses that alias), except the firmware's own data, bss, pool and stack. A range the chip does not have
 * faults (BusFault) or reads back wrong. */
fg_memtest_result fg_memtest(uint32_t start, uint32_t bytes);

/* FG_FEATURE_* probe: what its instructions computed (fg_protocol.h says what they should). An instruction the
 * core does not have faults (UsageFault, reported as a FAULT frame). */
uint32_t fg_feature_probe(uint32_t feature);

#endif /* FG_SELFTEST_PROBES_H */
