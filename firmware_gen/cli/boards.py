"""`firmware-gen boards` and `firmware-gen cache`: what the tool knows and keeps."""

from __future__ import annotations

import argparse

from firmware_gen.abi import ExitStatus
from firmware_gen.cli.common import (
    print_json,
    show,
)
from firmware_gen.cli.options import (
    CommandAdder,
)


def cmd_boards(args: argparse.Namespace) -> int:
    from firmware_gen.target.boards import list_boards, load_board

    boards = [load_board(name) for name in list_boards()]
    if args.json:
        print_json({"boards": [{"name": b.name, "cpu": b.core, "description": b.description,
                                 "flash_bytes": b.region_for("code").size, "ram_bytes": b.region_for("pool").size}
                                for b in boards]})
        return ExitStatus.OK
    print(f"{'board':<16} {'cpu':<11} {'flash':>10} {'RAM':>10}  description")
    for b in boards:
        print(f"{b.name:<16} {b.core:<11} {b.region_for('code').size // 1024:>7} KiB "
              f"{b.region_for('pool').size // 1024:>6} KiB  {b.description}")
    return ExitStatus.OK


def cmd_cache(args: argparse.Namespace) -> int:
    from firmware_gen.target import cache_limit

    root, limit = cache_limit.cache_root(), cache_limit.limit_bytes()
    items = cache_limit.clear(root) if args.clear else cache_limit.cache_items(root)
    kinds: dict[str, list[int]] = {}
    for item in items:
        count_size = kinds.setdefault(item.path.parent.name, [0, 0])
        count_size[0] += 1
        count_size[1] += item.size
    total = sum(size for _, size in kinds.values())
    verb = "removed" if args.clear else "holds"
    lines = [f"{root} {verb} {total / 2**20:.1f} MiB (limit {limit / 2**20:.0f} MiB, "
             f"{cache_limit.LIMIT_ENV}; least recently used first)"]
    lines += [f"  {kind:<14} {count:>6} items {size / 2**20:>9.1f} MiB"
              for kind, (count, size) in sorted(kinds.items())]
    show(args, {"root": str(root), "limit_bytes": limit, "cleared": args.clear, "total_bytes": total,
                 "kinds": {kind: {"items": c, "bytes": b} for kind, (c, b) in kinds.items()}}, "\n".join(lines))
    return ExitStatus.OK


def register(command: CommandAdder) -> None:
    sub = command("boards", cmd_boards, "the boards firmware-gen knows (one file each in boards/)", model=False)
    sub.add_argument("--json", action="store_true")
    sub = command("cache", cmd_cache, "the size of the build cache (firmware and objects), or --clear it",
                  model=False)
    sub.add_argument("--clear", action="store_true", help="remove every cached build and object")
    sub.add_argument("--json", action="store_true")
