/* Shim (firmware-gen's own code): no NEON on Cortex-M. */
