#include "fg_link.h"

#include "fg_port.h"
#include "fg_protocol.h"

/* CRC-32 (IEEE 802.3, reflected, as zlib.crc32) four bits at a time: a 64-byte table instead of 1 KiB. */
static const uint32_t crc_nibble_table[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
    0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

/* The running CRC of the frame being sent, and of the one being received (inverted, as zlib keeps it). */
static uint32_t send_crc;
static uint32_t receive_crc;

static uint32_t crc_update(uint32_t crc, const uint8_t *data, uint32_t bytes) {
    for (uint32_t i = 0; i < bytes; ++i) {
        crc ^= data[i];
        crc = (crc >> 4) ^ crc_nibble_table[crc & 15u];
        crc = (crc >> 4) ^ crc_nibble_table[crc & 15u];
    }
    return crc;
}

void fg_put_u16(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)value;
    p[1] = (uint8_t)(value >> 8);
}

void fg_put_u32(uint8_t *p, uint32_t value) {
    fg_put_u16(p, value);
    fg_put_u16(p + 2, value >> 16);
}

void fg_put_u64(uint8_t *p, uint64_t value) {
    fg_put_u32(p, (uint32_t)value);
    fg_put_u32(p + 4, (uint32_t)(value >> 32));
}

void fg_link_send_begin(uint8_t type, uint32_t length) {
    uint8_t header[7] = {FG_FRAME_MAGIC0, FG_FRAME_MAGIC1, type};
    fg_put_u32(header + 3, length);
    fg_uart_write(header, sizeof header);
    send_crc = crc_update(0xFFFFFFFFu, header + 2, 5);
}

void fg_link_send_part(const void *data, uint32_t bytes) {
    fg_uart_write(data, bytes);
    send_crc = crc_update(send_crc, data, bytes);
}

void fg_link_send_end(void) {
    uint8_t trailer[4];
    fg_put_u32(trailer, ~send_crc);
    fg_uart_write(trailer, sizeof trailer);
}

void fg_link_send(uint8_t type, const void *payload, uint32_t length) {
    fg_link_send_begin(type, length);
    fg_link_send_part(payload, length);
    fg_link_send_end();
}

static uint32_t read_u32(void) {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
        value |= (uint32_t)fg_uart_read_byte() << (8 * i);
    }
    return value;
}

void fg_link_receive_begin(uint8_t *type, uint32_t *length) {
    uint8_t previous = 0;
    for (;;) {
        uint8_t byte = fg_uart_read_byte();
        if (previous == FG_FRAME_MAGIC0 && byte == FG_FRAME_MAGIC1) {
            break;
        }
        previous = byte;
    }
    uint8_t header[5];
    header[0] = fg_uart_read_byte();
    uint32_t value = read_u32();
    fg_put_u32(header + 1, value);
    receive_crc = crc_update(0xFFFFFFFFu, header, 5);
    *type = header[0];
    *length = value;
}

void fg_link_receive_part(void *destination, uint32_t bytes) {
    uint8_t *p = destination;
    for (uint32_t i = 0; i < bytes; ++i) {
        p[i] = fg_uart_read_byte();
        receive_crc = crc_update(receive_crc, p + i, 1);
    }
}

int fg_link_receive_end(void) { return read_u32() == ~receive_crc; }
