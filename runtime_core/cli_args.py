"""The argparse helpers every subcommand shares: bounded numbers, --json, --backend and the knobs.

They sit in the base layer, so each package's cli.py can use them without importing the tree above
it (runtime_core/cli.py, which imports every package's cli.py).
"""
from __future__ import annotations

import argparse

from .errors import UsageError
from .knobs import LIMITS, Backend, Mode, Range, choices


def number(r: Range, name: str):
    """An argparse `type=` that parses a number and checks it against the Range `r`."""
    def parse(text: str):
        try:
            return r.parse(name, text)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e).removeprefix(f"{name} ")) from None
    parse.__name__ = name  # argparse names the type in its messages
    return parse


def add_json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON (the default output is JSON too)")


def add_backend_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=choices(Backend), default=Backend.AUTO.value,
                   help="auto: CUDA when torch sees a GPU, else the simulator")


def add_knob_args(p: argparse.ArgumentParser, scope: str) -> None:
    """--mode, --n, --work-us and --dynamic, bounded by knobs.LIMITS[scope]."""
    lim = LIMITS[scope]
    p.add_argument("--mode", choices=choices(Mode), required=True)
    p.add_argument("--n", type=number(lim["n"], "n"), required=True, help="kernels in the chain")
    p.add_argument("--work-us", type=number(lim["work_us"], "work_us"), required=True,
                   help="GPU work per kernel, µs")
    p.add_argument("--dynamic", action="store_true", help="the input shape changes on every call")
    add_json_flag(p)
