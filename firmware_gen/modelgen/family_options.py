"""The builtin options of the operator families added after the writer's first eighteen, one module per family (the
same `(schema slot, Builder kind, value)` fields as writer.py's table), merged here for writer.py."""

from __future__ import annotations

from firmware_gen.modelgen import (
    activation_options,
    arithmetic_options,
    movement_options,
    spatial_options,
    stateful_options,
)

_FAMILIES = (activation_options, arithmetic_options, movement_options, spatial_options, stateful_options)

OPTION_WRITERS = {opcode: entry for family in _FAMILIES for opcode, entry in family.OPTION_WRITERS.items()}
VERSIONS = {opcode: version for family in _FAMILIES for opcode, version in family.VERSIONS.items()}
