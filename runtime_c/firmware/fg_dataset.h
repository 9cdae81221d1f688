/* The samples of a dataset firmware (`validate --dataset --board`, the dataset session of fg_protocol.h):
 * firmware_gen/target/dataset_image.py assembles them into the image, in flash, as this header followed by, per
 * sample, the bytes of every model input in order. The profiling firmware links no samples: fg_dataset is a weak
 * reference, its address NULL. */
#ifndef FG_DATASET_H
#define FG_DATASET_H

#include <stdint.h>

#define FG_DATASET_MAGIC 0x53444746 /* "FGDS" as a little-endian u32 */
#define FG_DATASET_HEADER_BYTES 16

typedef struct {
    uint32_t magic;
    uint32_t samples;
    uint32_t sample_bytes; /* every input of one sample */
    uint32_t reserved;
    uint8_t data[];
} fg_dataset_image;

extern const fg_dataset_image fg_dataset __attribute__((weak));

#endif /* FG_DATASET_H */
