/* The end of a real-board run, on the host against a model of the board's UART: the frames the firmware sends
 * last (an OUTPUT longer than the nRF driver's 32-byte staging buffer, then DONE) through the real fg_link.c and
 * the real driver, then what fg_exit does on a real board (runtime_c/ports/semihosting.c, FG_NO_SEMIHOSTING):
 * fg_uart_flush(), then the reset request. -DMODEL_SKIP_FLUSH leaves the flush out, as the nRF driver's empty
 * flush did, to show what the model makes of a reset that comes too early. */
#include "fg_link.h"
#include "fg_port.h"
#include "fg_protocol.h"
#include "uart_model.h"

int main(void) {
    fg_uart_init();
    uint8_t output[71];
    for (uint32_t i = 0; i < sizeof output; ++i) {
        output[i] = (uint8_t)(i * 37u + 1u);
    }
    fg_link_send(FG_FRAME_OUTPUT, output, sizeof output);
    uint8_t status[4];
    fg_put_u32(status, 0);
    fg_link_send(FG_FRAME_DONE, status, sizeof status);
#ifndef MODEL_SKIP_FLUSH
    fg_uart_flush();
#endif
    model_reset_requested();
    model_report(stdout);
    return 0;
}
