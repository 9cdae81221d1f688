"""The options of a memory plan, defined once: every command, cache key and stage takes this value."""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_gen.planner.plan import PoolSpec


@dataclass(frozen=True)
class PlanningOptions:
    """overlap: let an operator's output overlap the part of its input it has already read, where the operator
    allows it. pools: the RAM regions to fill, fastest first (none: one unlimited pool). io_in_pool=False leaves
    the model's inputs and outputs in the caller's buffers and plans only the intermediates. algorithm: one
    planning algorithm by name (None: run them all, keep the smallest pool)."""

    overlap: bool = True
    pools: tuple[PoolSpec, ...] = field(default_factory=tuple)
    io_in_pool: bool = True
    algorithm: str | None = None
    alignment: int = 16
    # Patch-based execution of a graph prefix (driver/patch_choice.py): off, auto or min; a forced stage
    # "OPERATOR:ROWSxCOLUMNS"; the RAM the pool must fit for auto to try patches (None: only the pools' limits).
    patches: str = "auto"
    patch_stage: str | None = None
    ram_bytes: int | None = None
    # A chosen stage takes fewer kernel calls than this (their table is in flash): set when a stage's build did not
    # fit (driver/deploy.py).
    stage_calls_below: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "pools", tuple(self.pools))
        if len({p.name for p in self.pools}) != len(self.pools):
            raise ValueError("pool names must be distinct")

    def cache_key(self) -> str:
        """A text that differs whenever the plan may differ."""
        pools = ",".join(f"{p.name}:{p.size_limit}:{p.priority}" for p in self.pools)
        return (f"overlap={self.overlap};pools={pools};io_in_pool={self.io_in_pool};algorithm={self.algorithm};"
                f"alignment={self.alignment}" + self._patch_key())

    def _patch_key(self) -> str:
        if (self.patches, self.patch_stage, self.ram_bytes, self.stage_calls_below) == ("auto", None, None, None):
            return ""  # the key of a plan made before patches existed
        calls = "" if self.stage_calls_below is None else f";stage_calls_below={self.stage_calls_below}"
        return f";patches={self.patches};patch_stage={self.patch_stage};ram_bytes={self.ram_bytes}" + calls
