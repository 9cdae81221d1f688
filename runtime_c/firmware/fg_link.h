/* Framing over the UART (see fg_protocol.h): CRC-32 computed while the bytes stream, so a payload goes straight
 * from the wire to its destination (a model input in the pool) without a staging buffer. */
#ifndef FG_LINK_H
#define FG_LINK_H

#include <stdint.h>

void fg_link_send_begin(uint8_t type, uint32_t length);
void fg_link_send_part(const void *data, uint32_t bytes);
void fg_link_send_end(void);
void fg_link_send(uint8_t type, const void *payload, uint32_t length);

/* Skips bytes up to the next frame magic, then reads the type and payload length. */
void fg_link_receive_begin(uint8_t *type, uint32_t *length);
void fg_link_receive_part(void *destination, uint32_t bytes);
/* Reads the CRC; returns 1 when it matches what was received. */
int fg_link_receive_end(void);

void fg_put_u16(uint8_t *p, uint32_t value);
void fg_put_u32(uint8_t *p, uint32_t value);
void fg_put_u64(uint8_t *p, uint64_t value);

#endif /* FG_LINK_H */
