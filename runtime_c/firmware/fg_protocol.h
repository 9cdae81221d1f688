/* The serial protocol between the profiling firmware and the host (firmware_gen/serial_link.py mirrors it).
 *
 * Frame: 'F' 'G' | type (1 byte) | length (uint32 LE) | payload | CRC-32 (IEEE, uint32 LE) of type, length and
 * payload. All integers little-endian.
 *
 * Session: host -> HELLO_REQUEST (repeated until answered); firmware -> HELLO; host -> one INPUT per model input; firmware runs the model, then -> one OUTPUT per
 * model output, PROFILE, DONE and exits. Anything wrong from the host -> ERROR and exit FG_EXIT_PROTOCOL_ERROR;
 * a fault -> FAULT and exit FG_EXIT_FAULT.
 *
 * Step session (models generated with --interface packed): host -> STEP_SESSION instead of the inputs, firmware ->
 * SESSION_READY (the host waits for it: an ERROR sent just before the firmware exits must not race a write); then any
 * number of INPUT (written, nothing runs), STEP_REQUEST (the firmware runs that one step through the registry,
 * fg_model_call_step, -> STEP_DONE) and TENSOR_REQUEST (-> TENSOR: the bytes of one tensor argument of a step,
 * read through its DLTensor, so the firmware needs no tensor table); END_REQUEST -> DONE (0) and exit.
 * A firmware built without the packed interface answers STEP_SESSION with ERROR NOT_PACKED.
 * The host speaks first because what the firmware sends before the host listens can be lost: a real board boots
 * before its serial port is opened, and QEMU's TCP serial backend sometimes drops the first bytes after it
 * accepted the connection.
 *
 * Self-test session (`firmware-gen selftest`, runtime_c/selftest/): after the HELLO, any number of ECHO_REQUEST,
 * TIMING_REQUEST, MEMTEST_REQUEST and FEATURE_REQUEST, each answered; END_REQUEST -> DONE (0) and exit.
 *
 * Dataset session (`validate --dataset --board`): the samples are built into the image (fg_dataset.h), so only the
 * outputs cross the link. Host -> DATASET_REQUEST instead of the inputs; the firmware runs every sample it holds,
 * -> one SAMPLE per sample, then DONE (0) and exits. A firmware that holds no samples answers ERROR NO_DATASET, one
 * that holds another count or size than the host expects ERROR BAD_LENGTH.
 *
 * Sequence session (`run` of a sequence on a stateful model): host -> SEQUENCE_REQUEST (u32 invocations >= 1) before
 * the inputs; then, per invocation, the session above: the inputs, the firmware -> outputs, PROFILE, DONE, through
 * one model instance (its state carried). The firmware exits after the last DONE or the first non-zero status. */
#ifndef FG_PROTOCOL_H
#define FG_PROTOCOL_H

#define FG_PROTOCOL_VERSION 1
#define FG_FRAME_MAGIC0 0x46 /* 'F' */
#define FG_FRAME_MAGIC1 0x47 /* 'G' */

/* Firmware -> host. */
#define FG_FRAME_HELLO 0x01   /* u8 version, u8 counter kind, u16 inputs, u16 outputs, u16 0, u32 steps,
                                 u32 workspace bytes, u32 bytes of each input, u32 bytes of each output */
#define FG_FRAME_OUTPUT 0x02  /* u8 output index, the tensor bytes */
#define FG_FRAME_PROFILE 0x03 /* u8 counter kind, 3 x u8 0, u32 steps, u64 invoke total, u64 per step */
#define FG_FRAME_DONE 0x04    /* i32 status returned by fg_model_invoke */
#define FG_FRAME_ERROR 0x05   /* u8 error code, 3 x u8 0, u32 detail */
#define FG_FRAME_FAULT 0x06   /* i32 running step (-1: none), u32 exception number, pc, lr, xpsr, cfsr, hfsr,
                                 mmfar, bfar, exc_return */
#define FG_FRAME_STEP_DONE 0x07 /* u32 step, i32 status (FG_PACKED_OK or FG_PACKED_ERR_*), u64 counter ticks */
#define FG_FRAME_TENSOR 0x08    /* u32 step, u32 argument, i32 status, the tensor bytes (none if status != 0) */
#define FG_FRAME_SESSION_READY 0x09 /* empty: the step session has begun */
#define FG_FRAME_ECHO 0x0A    /* self-test: the payload of the ECHO_REQUEST, unchanged */
#define FG_FRAME_TIMING 0x0B  /* self-test: u8 phase (0: the counted wait starts, 1: it ended), u8 counter kind,
                                 u8 stuck (1: the counter stopped advancing), u8 0, u64 counts waited */
#define FG_FRAME_MEMTEST 0x0C /* self-test: u32 start, u32 bytes, u32 bytes tested, u32 status (0: pass, 1: a word
                                 read back wrong), u32 address, u32 read, u32 expected (of the first bad word) */
#define FG_FRAME_FEATURE 0x0D /* self-test: u8 feature, 3 x u8 0, u32 what its probe computed */
#define FG_FRAME_SAMPLE 0x0E  /* dataset: u32 sample, i32 status of fg_model_invoke, the bytes of every output in order */
#define FG_FRAME_STACK 0x0F   /* u32 bytes of the program's stack used since reset (its high-water mark), u32 bytes
                                 it has; sent by the bare-metal firmware between PROFILE and DONE */
/* Host -> firmware. */
#define FG_FRAME_HELLO_REQUEST 0x10 /* empty */
#define FG_FRAME_INPUT 0x11         /* u8 input index, the tensor bytes */
#define FG_FRAME_STEP_SESSION 0x12  /* empty */
#define FG_FRAME_STEP_REQUEST 0x13  /* u32 step */
#define FG_FRAME_TENSOR_REQUEST 0x14 /* u32 step, u32 argument (0-based among the step's tensors: inputs, outputs) */
#define FG_FRAME_END_REQUEST 0x15   /* empty */
#define FG_FRAME_ECHO_REQUEST 0x16    /* self-test: 1 to FG_SELFTEST_ECHO_MAX bytes, echoed back in an ECHO */
#define FG_FRAME_TIMING_REQUEST 0x17  /* self-test: u32 counts: TIMING 0, a wait of that many counts, TIMING 1 */
#define FG_FRAME_MEMTEST_REQUEST 0x18 /* self-test: u32 start, u32 bytes: a RAM range to test (the firmware skips
                                         its own data, bss and stack) -> MEMTEST */
#define FG_FRAME_FEATURE_REQUEST 0x19 /* self-test: u8 feature (FG_FEATURE_*): run its probe -> FEATURE */
#define FG_FRAME_DATASET_REQUEST 0x1A /* dataset: u32 samples, u32 bytes per sample (what the host built into the
                                         image) -> one SAMPLE per sample, DONE */
#define FG_FRAME_SEQUENCE_REQUEST 0x1B /* sequence: u32 invocations, before the first inputs */

/* Self-test (runtime_c/selftest/): its HELLO is that of a model with no inputs, outputs or steps; END_REQUEST ends
 * it with DONE (0). The probes of the CPU features and what they compute (fixed inputs). */
#define FG_SELFTEST_ECHO_MAX 4096
#define FG_FEATURE_FPU 1 /* vmul.f32 + vadd.f32: 1.5 x 2.0 + 1.5 = 4.5f (0x40900000) */
#define FG_FEATURE_DSP 2 /* sadd16, sxtb16, smlad on 0x00030002, 0x00050004: 0x00080046 */
#define FG_FEATURE_MVE 3 /* vdup.8 + vmlav.s8 over 16 lanes: 16 x 3 x 5 = 240 */

/* ERROR codes. */
#define FG_ERROR_BAD_CRC 1
#define FG_ERROR_BAD_LENGTH 2
#define FG_ERROR_BAD_INDEX 3
#define FG_ERROR_UNEXPECTED_FRAME 4
#define FG_ERROR_NOT_PACKED 5 /* STEP_SESSION to a firmware built without --interface packed */
#define FG_ERROR_NO_DATASET 6 /* DATASET_REQUEST to a firmware that holds no samples */

#endif /* FG_PROTOCOL_H */
