"""The options several commands share, as argparse arguments."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from firmware_gen.abi import CALLING_CONVENTIONS
from firmware_gen.project_config import PATCH_MODES

# A command's handler, and what registers a command: (name, handler, help, model=True) -> its parser.
Command = Callable[[argparse.Namespace], int]
CommandAdder = Callable[..., argparse.ArgumentParser]


def add_planning_options(sub: argparse.ArgumentParser, overlap_only: bool = False) -> None:
    from firmware_gen.planner import PlanningOptions

    defaults = PlanningOptions()
    sub.add_argument("--overlap", action=argparse.BooleanOptionalAction, default=defaults.overlap,
                     help="let outputs overlap inputs where the kernels allow it (default: on)")
    if overlap_only:
        return
    sub.add_argument("--pool", action=Repeated, metavar="NAME[:SIZE]",
                     help="a RAM pool, e.g. dtcm:64K (repeat, fastest first; the last may have no size); on a "
                          "board each pool goes to the memory region of its name")
    sub.add_argument("--io-in-pool", action=argparse.BooleanOptionalAction, default=defaults.io_in_pool,
                     help="plan the model's inputs and outputs in the pool (default); --no-io-in-pool leaves "
                          "them in the caller's buffers, which fg_model_run reads and writes in place")
    sub.add_argument("--patches", choices=PATCH_MODES, default=defaults.patches,
                     help="run the first layers patch by patch, so that the pool shrinks: min takes the smallest pool "
                          "within +15%% estimated instructions; auto (default) does so only when the whole-tensor "
                          "plan does not fit a pool's size; off never")
    sub.add_argument("--patch-stage", metavar="OP:RxC",
                     help="force a patch stage from the input to operator OP, its output in R x C patches "
                          "(e.g. 7:3x3), or OP:rows for its halos kept in row buffers")


def add_product_options(sub: argparse.ArgumentParser, pool_from_app: bool = True) -> None:
    sub.add_argument("--name", help="prefix of every external symbol (NAME_model_run, NAME_pool, NAME_const_*) and, "
                                    "upper-cased, every macro of the model (default: fg)")
    sub.add_argument("--weights-section", metavar="SECTION",
                     help="put the weights in this linker section (e.g. .ext_flash), for external flash or a bank")
    if pool_from_app:
        sub.add_argument("--pool-from-app", action="store_true",
                         help="the application supplies the workspace pool through NAME_model_set_pool()")


def add_ram_weights_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--weights-in-ram", metavar="BYTES|auto",
                     help="copy the weight tables whose flash reads cost the most estimated wait-state cycles into "
                          "RAM at start-up, within BYTES (64K, 1M) or auto: the RAM the firmware leaves free (off "
                          "by default; needs a board whose memory charges flash wait states)")


def add_interface_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--interface", choices=CALLING_CONVENTIONS, default="unpacked",
                     help="how the schedule calls kernels: direct C calls (default) or TVM's packed ABI")


def add_input_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--input", action="append", help="input tensor as .npy (once per model input); validate and run: "
                     "an array with one more leading axis (frames) is a sequence, run in order, state carried")
    sub.add_argument("--seed", type=int, default=0, help="seed of the random inputs")


def add_parallel_options(sub: argparse.ArgumentParser, prefix: str = "") -> None:
    sub.add_argument("--jobs", type=int, metavar="N", help=f"{prefix}local worker processes (default: one per core)")
    sub.add_argument("--ray", metavar="auto|ADDRESS", help=f"{prefix}run on a Ray cluster instead: auto (the one this "
                     "machine belongs to) or the HOST:PORT of its head node (pip install 'firmware-gen[distributed]')")


def add_zephyr_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--zephyr", action="store_true", help="build zephyr_app/ with the model as a Zephyr module, for "
                     "Zephyr's board of the --board name, and run it under QEMU as Zephyr's board does")
    sub.add_argument("--zephyr-base", metavar="DIR", help="with --zephyr: the zephyr/ folder of a Zephyr workspace "
                     "(default: $ZEPHYR_BASE)")


def add_link_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--port", help="serial port of a real board (e.g. /dev/ttyACM0); default: QEMU")
    sub.add_argument("--baud", type=int, help="baud rate of the serial port (default: the board file's)")
    sub.add_argument("--probe", help="a real board without --port: the serial number of its probe, to pick its "
                                     "port among several boards")


class Repeated(argparse.Action):
    """action="append", except that the first use on the command line replaces a default of the project file."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        given = f"_{self.dest}_on_command_line"
        items = list(getattr(namespace, self.dest) or []) if getattr(namespace, given, False) else []
        setattr(namespace, given, True)
        setattr(namespace, self.dest, [*items, values])
