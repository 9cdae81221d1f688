"""The operator registry: every module in this package that defines `KERNELS` (a list of OpKernel) contributes them."""

from __future__ import annotations

import importlib
import pkgutil

from firmware_gen.ops.base import OpKernel


def _discover() -> dict[str, OpKernel]:
    registry: dict[str, OpKernel] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for kernel in getattr(module, "KERNELS", ()):
            registry[kernel.opcode] = kernel
    return registry


REGISTRY: dict[str, OpKernel] = _discover()


def supported_opcodes() -> list[str]:
    return sorted(REGISTRY)
