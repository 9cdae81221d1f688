/* What a generated model's functions return besides 0 when the application supplies the workspace pool
 * (firmware-gen generate --pool-from-app). firmware_gen/abi.py ModelStatus mirrors these codes. */
#ifndef FG_STATUS_H
#define FG_STATUS_H

#define FG_STATUS_OK 0
#define FG_STATUS_NO_POOL -16         /* invoke or run before a pool was set */
#define FG_STATUS_POOL_TOO_SMALL -17  /* the buffer is smaller than the model's workspace */
#define FG_STATUS_POOL_MISALIGNED -18 /* the buffer is not aligned to the model's POOL_ALIGN bytes */

#endif /* FG_STATUS_H */
