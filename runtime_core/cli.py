"""`python -m runtime_core`: one argparse tree; each subpackage registers its own subcommands.

    model     closed-form prediction                model/cli.py
    measure   one measured point (cuda or sim)      model/measure_cli.py (its JSON carries the model's
    bench     our executors vs raw torch            model/measure_cli.py  prediction, so it sits above engine)
    sweep     a recording of a grid                 recordings/cli.py
    alloc     allocator comparison                  allocator/cli.py
    lab       a failure-mode lab                    labs/cli.py
    aot       export -> AOTInductor -> load         aot/cli.py
    diagnose  will CUDA graphs help this model?     diagnose/cli.py

A subcommand's function takes the parsed arguments and returns a dict (printed as JSON) or an
exit status. Bad input raises UsageError: one line on stderr, exit status 2. A standard output
that cannot be written is one line and EX_IOERR (74). Any other exception is a bug in our code
and keeps its traceback. The argument helpers every subcommand
shares (bounded numbers, --json, --backend, the knobs) are in cli_args.py, beneath every layer.
"""
from __future__ import annotations

import importlib
import json
import sys

from .cli_args import Parser, tidy_json
from .errors import UsageError

SUBPACKAGES = ("model", "recordings", "allocator", "labs", "aot", "diagnose")


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


def _say_skipped(quiet: bool = False) -> None:
    """A recording in the folder that failed to load, named on stderr: without it a corrupt file
    reads as no recording at all ("no GPU recording of this lab ships"). `quiet`: forget them."""
    store = sys.modules.get(f"{__package__}.recordings.store")  # not loaded: no recording was looked at
    if store is None:
        return
    for line in () if quiet else store.SKIPPED:
        print(f"runtime_core: note: skipped a recording: {line}", file=sys.stderr)
    store.SKIPPED.clear()


class StdoutError(Exception):
    """Standard output could not be written (a full disk, a device that refuses it)."""


class _Stdout:
    """sys.stdout for one command: a failed write or flush raises StdoutError, which main reports
    in one line (with EX_IOERR), not as a traceback a script reads as exit 1, "below target"."""

    def __init__(self, real):
        self._real = real

    def write(self, text: str) -> int:
        try:
            return self._real.write(text)
        except OSError as e:
            raise StdoutError(e.strerror or str(e)) from e

    def flush(self) -> None:
        try:
            self._real.flush()
        except OSError as e:
            raise StdoutError(e.strerror or str(e)) from e

    def __getattr__(self, name):
        return getattr(self._real, name)


EX_IOERR = 74  # sysexits.h: an input/output error


def main(argv: list[str] | None = None) -> int:
    real = sys.stdout
    sys.stdout = _Stdout(real)
    try:
        return _main(argv)
    except StdoutError as e:
        print(f"runtime_core: error: could not write to standard output ({e})", file=sys.stderr)
        try:  # what is still buffered would fail again when Python flushes at exit
            import os
            os.dup2(os.open(os.devnull, os.O_WRONLY), real.fileno())
        except (OSError, ValueError, AttributeError):  # no file descriptor (a StringIO in a test)
            pass
        return EX_IOERR
    finally:
        sys.stdout = real


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:  # a bare call: the commands and what each does, not argparse's "required: cmd"
        parser.print_help(sys.stderr)
        return 2
    try:
        from .engine.cores import apply_cpus_env
        apply_cpus_env()   # before any timing: a recorder's child runs on its share of the cores
        a = parser.parse_args(argv)
        a.argv = argv  # what was typed: cli_args.refuse_unused tells a flag given its default value from one left out
        from .env_check import cli_notices
        for note in cli_notices():  # a junk RUNTIME_RECORDINGS_DIR was used as the shipped folder in silence
            print(f"runtime_core: note: {note}", file=sys.stderr)
        _say_skipped(quiet=True)  # only this command's skipped files are named (an earlier scan's are not)
        try:
            out = a.func(a)
        finally:
            _say_skipped()
    except UsageError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        cmd = argv[0] if argv and argv[0] in _subcommands(parser) else ""
        print(f"runtime_core{' ' + cmd if cmd else ''}: error: {first}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT, no traceback
        cmd = argv[0] if argv and argv[0] in _subcommands(parser) else ""
        print(f"runtime_core{' ' + cmd if cmd else ''}: interrupted", file=sys.stderr)
        return 130
    if not isinstance(out, int):
        print(json.dumps(tidy_json(out), indent=2, default=str))
    sys.stdout.flush()  # a write that fails, fails here, inside main
    return out if isinstance(out, int) else 0
