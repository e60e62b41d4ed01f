"""`python -m runtime_core`: one argparse tree; each subpackage registers its own subcommands.

    model     closed-form prediction                model/cli.py
    measure   one measured point (cuda or sim)      engine/cli.py
    bench     our executors vs raw torch            engine/cli.py
    sweep     a recording of a grid                 recordings/cli.py
    alloc     allocator comparison                  allocator/cli.py
    lab       a failure-mode lab                    labs/cli.py
    aot       export -> AOTInductor -> load         aot/cli.py
    diagnose  will CUDA graphs help this model?     diagnose/cli.py

A subcommand's function takes the parsed arguments and returns a dict (printed as JSON) or an
exit status. Bad input raises UsageError: one line on stderr, exit status 2. Any other
exception is a bug in our code and keeps its traceback.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys

from .errors import UsageError
from .knobs import LIMITS, Backend, Mode, Range, choices

SUBPACKAGES = ("model", "engine", "recordings", "allocator", "labs", "aot", "diagnose")


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error raises UsageError (one line) instead of printing a usage block."""

    def error(self, message):
        raise UsageError(message)


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


def build_parser() -> Parser:
    ap = Parser(prog="python -m runtime_core",
                description="The runtime lesson's engine: predict, measure, record and run the labs.")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    for name in SUBPACKAGES:
        importlib.import_module(f".{name}.cli", __package__).register(sub)
    return ap


def _subcommands(parser: Parser) -> set[str]:
    for action in parser._subparsers._group_actions:
        return set(action.choices)
    return set()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        a = parser.parse_args(argv)
        out = a.func(a)
    except UsageError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        cmd = argv[0] if argv and argv[0] in _subcommands(parser) else ""
        print(f"runtime_core{' ' + cmd if cmd else ''}: error: {first}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT, no traceback
        cmd = argv[0] if argv and argv[0] in _subcommands(parser) else ""
        print(f"runtime_core{' ' + cmd if cmd else ''}: interrupted", file=sys.stderr)
        return 130
    if isinstance(out, int):
        return out
    print(json.dumps(out, indent=2, default=str))
    return 0
