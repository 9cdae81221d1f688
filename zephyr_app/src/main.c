/* firmware-gen on Zephyr: runs the model of a `firmware-gen generate --zephyr` module once and prints the frames
 * of the profiling protocol (runtime_c/firmware/fg_protocol.h: HELLO, OUTPUT, PROFILE, DONE) on Zephyr's console,
 * each frame hex-encoded on a line of its own starting with "@FG ", so that any console carries them. The frames
 * are encoded by the bare-metal firmware's fg_frames.c.
 * Steps are timed with k_cycle_get_32() (sys_clock_hw_cycles_per_sec() counts per second).
 * The input is a fixed byte pattern (firmware_gen/zephyr_console.py: input_pattern) since nothing is received:
 * the host can compute the expected outputs from it. Only long-stable Zephyr APIs: printk, k_cycle_get_32,
 * sys_clock_hw_cycles_per_sec. */
#include <stdint.h>
#include <string.h>
#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "fg/hooks.h"
#include "fg_frames.h"
#include "fg_port.h"
#include "model.h"

#ifndef FG_ENABLE_HOOKS
#error "the model module must be built with FIRMWARE_GEN_HOOKS (the default)"
#endif

/* The pool's bounds, from the module's linker snippet (zephyr/fg_pool.ld): its NOLOAD section is not zeroed by
 * Zephyr's boot, so the app clears it as the bare-metal startup does. */
extern uint8_t __fg_pool_start[], __fg_pool_end[];

static uint64_t step_cycles[FG_MODEL_NUM_STEPS]; /* 32-bit differences, in the u64 counts PROFILE carries */
static uint32_t step_started_at;

void fg_hook_step_begin(int step) {
    (void)step;
    step_started_at = k_cycle_get_32();
}

void fg_hook_step_end(int step) { step_cycles[step] = k_cycle_get_32() - step_started_at; }

void fg_hook_tensor_ready(int step, int tensor, const void *data, size_t bytes) {
    (void)step;
    (void)tensor;
    (void)data;
    (void)bytes;
}

/* fg_link.c writes its frames through the port's UART: here, as hex digits on the console. */
void fg_uart_write(const void *data, size_t bytes) {
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; ++i) {
        printk("%02x", p[i]);
    }
}

/* Nothing is received on Zephyr (the input is built in); fg_link.c's receiver is never called. */
uint8_t fg_uart_read_byte(void) { return 0; }

/* Each frame of fg_frames.c on a console line of its own. */
void fg_frame_open(void) { printk("@FG "); }

void fg_frame_close(void) { printk("\n"); }

/* Byte j of input i: (37 j + 101 i + 11) mod 256. */
static void fill_input(int index, uint8_t *data) {
    for (uint32_t j = 0; j < fg_model_input_bytes(index); ++j) {
        data[j] = (uint8_t)(37u * j + 101u * (uint32_t)index + 11u);
    }
}

#if !FG_MODEL_IO_IN_POOL
/* The inputs and outputs live in the caller's buffers: 16-byte aligned slices of one static block. */
static uint8_t io_buffers[FG_MODEL_IO_BYTES] __attribute__((aligned(16)));
#endif

/* Runs the model once on the input pattern; the outputs' addresses go to outputs[]. */
static int run_model(const void *outputs[FG_MODEL_NUM_OUTPUTS], uint32_t *total) {
#if FG_MODEL_IO_IN_POOL
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        fill_input(i, fg_model_input(i));
    }
    uint32_t started_at = k_cycle_get_32();
    int status = fg_model_invoke();
    *total = k_cycle_get_32() - started_at;
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        outputs[i] = fg_model_output(i);
    }
#else
    const void *inputs[FG_MODEL_NUM_INPUTS];
    void *results[FG_MODEL_NUM_OUTPUTS];
    uint32_t offset = 0;
    for (int i = 0; i < FG_MODEL_NUM_INPUTS; ++i) {
        fill_input(i, io_buffers + offset);
        inputs[i] = io_buffers + offset;
        offset += (fg_model_input_bytes(i) + 15u) & ~15u;
    }
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        results[i] = io_buffers + offset;
        outputs[i] = results[i];
        offset += (fg_model_output_bytes(i) + 15u) & ~15u;
    }
    uint32_t started_at = k_cycle_get_32();
    int status = fg_model_run(inputs, results);
    *total = k_cycle_get_32() - started_at;
#endif
    return status;
}

int main(void) {
    memset(__fg_pool_start, 0, (size_t)(__fg_pool_end - __fg_pool_start));
    printk("firmware-gen: model %s on %s, k_cycle_get_32 at %u Hz\n", FG_MODEL_NAME, CONFIG_BOARD,
           (unsigned)sys_clock_hw_cycles_per_sec());
    fg_frame_send_hello(FG_COUNTER_ZEPHYR_CYCLES);
    const void *outputs[FG_MODEL_NUM_OUTPUTS];
    uint32_t total = 0;
    int status = run_model(outputs, &total);
    for (int i = 0; i < FG_MODEL_NUM_OUTPUTS; ++i) {
        fg_frame_send_output(i, outputs[i]);
    }
    fg_frame_send_profile(FG_COUNTER_ZEPHYR_CYCLES, total, step_cycles);
    fg_frame_send_done(status);
    printk("firmware-gen: done, status %d\n", status);
    return 0;
}
