#!/usr/bin/env bash
# Installs everything firmware-gen needs on a Debian machine with Python >= 3.10 (run as root, or with sudo
# available): the host C compiler, the Arm cross toolchain, QEMU, LLVM 19 (llvm-mca, llvm-objdump: the cycle
# estimate), and a virtual environment in .venv with the
# package and its test extras. Idempotent: what is already there is not installed again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
command -v cc >/dev/null || missing+=(gcc libc6-dev)
command -v arm-none-eabi-gcc >/dev/null || missing+=(gcc-arm-none-eabi)
[ -e /usr/lib/arm-none-eabi/newlib/libc_nano.a ] || [ -e /usr/lib/arm-none-eabi/newlib/thumb/v7-m/nofp/libc_nano.a ] \
    || missing+=(libnewlib-arm-none-eabi)
command -v qemu-system-arm >/dev/null || missing+=(qemu-system-arm)
# The cycle estimate (docs/cycle_model.md): llvm-objdump and llvm-mca of LLVM 19.
[ -x /usr/lib/llvm-19/bin/llvm-mca ] || missing+=(llvm-19)
# The integration tests: the generated CMakeLists.txt and a C++ caller on the host, the model.mk fragment with make.
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
# Zephyr builds (build|run|validate --zephyr, tests/target/test_zephyr_qemu.py): plain cmake + ninja, dtc.
command -v ninja >/dev/null || missing+=(ninja-build)
command -v dtc >/dev/null || missing+=(device-tree-compiler)
# Zephyr's CMake compiles through ccache when present: a second model's build on a board reuses the kernel's objects.
command -v ccache >/dev/null || missing+=(ccache)
python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
    echo "bootstrap: installing Debian packages: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
    echo "bootstrap: creating .venv"
    python3 -m venv .venv
fi
stamp=.venv/.firmware-gen-installed
if [ ! -e "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "bootstrap: installing firmware-gen and its test extras into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[test,plot]'
    touch "$stamp"
fi
