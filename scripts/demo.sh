#!/usr/bin/env bash
# Set up everything, then run the demo: the project's MobileNetV1 0.25 on an emulated Cortex-M3 (qemu_cortex_m3).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/firmware-gen demo "$@"
