"""The argparse helpers every subcommand shares: the one-line parser, bounded numbers, file paths,
--json, --backend and the knobs.

They sit in the base layer, so each package's cli.py can use them without importing the tree above
it (runtime_core/cli.py, which imports every package's cli.py).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from .errors import UsageError
from .knobs import LIMITS, Backend, GraphInput, Mode, Policy, Range, choices


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error raises UsageError (one line) instead of printing a usage block."""

    def error(self, message):
        raise UsageError(message)


def one_line_errors(prog: str, body, argv: list[str]) -> int:
    """`body(argv)`'s exit status, with a UsageError as one line on stderr and status 2: for the
    modules run as scripts (python -m runtime_core.labs.record, ...), as runtime_core/cli.py does
    for the subcommands."""
    try:
        return body(argv)
    except UsageError as e:
        print(f"{prog}: error: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 2


def path(text: str) -> str:
    """An argparse `type=` for a file path: an empty one is refused (a script's unset variable
    would otherwise turn --record "$OUT" into no recording at all, with exit status 0), and so is
    "-" (which reads as standard input or output, but would be read or written as a file of that
    name), a path ending in "/" (a folder: `--record x.json/` wrote the file x.json), and one
    holding a line break or another control character (the one-line error was cut at it)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (is a shell variable unset?)")
    if text.strip() == "-":
        raise argparse.ArgumentTypeError("'-' (standard input or output) is not read or written here: give a "
                                         "file path (a command's JSON summary is printed anyway)")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):  # an error line would break at it, losing the reason
        raise argparse.ArgumentTypeError(f"{text!r} holds a control character (a line break, a tab): give a plain path")
    if text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text} ends in '/', which names a folder: give a file path")
    from .atomic import NAME_MAX, PATH_MAX  # a name no file system holds: one line, not OSError's traceback
    for part in Path(text).parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise argparse.ArgumentTypeError(f"the name {part[:24]}... is {len(os.fsencode(part))} bytes; "
                                             f"a file system allows {NAME_MAX}")
    if len(os.fsencode(text)) >= PATH_MAX:
        raise argparse.ArgumentTypeError(f"the path is {len(os.fsencode(text))} bytes; a file system allows "
                                         f"{PATH_MAX - 1}")
    return text


def refuse_unused(a, parser: argparse.ArgumentParser, used: set, what: str, tolerated: set = frozenset()) -> None:
    """A UsageError naming the first option given that is not in `used`, the options `what` reads:
    a flag the command would ignore must not pass in silence (`diagnose --plan zipf --sweep` printed
    a plan; `aot clear-cache --tokens 50` cleared the cache). Given means typed on the command line
    (a.argv, set by cli.main; "--tokens 50" is the default's value, typed all the same; "--tok 50"
    is argparse's unique prefix of it) or holding a value other than its default. An option in
    `tolerated` (a stable call that scripts make, ../shared/design.md) is only named on stderr."""
    typed = [t.split("=", 1)[0] for t in getattr(a, "argv", ()) if t.startswith("--") and len(t) > 2]
    for act in parser._actions:
        if not act.option_strings or act.dest in used or act.dest == "help":
            continue
        given = (any(o.startswith(t) for t in typed for o in act.option_strings if o.startswith("--"))
                 or getattr(a, act.dest, act.default) != act.default)
        if not given:
            continue
        if act.dest in tolerated:
            print(f"runtime_core: note: {act.option_strings[-1]} is not read {what}", file=sys.stderr)
            continue
        raise UsageError(f"{act.option_strings[-1]} does nothing {what}: leave it out")


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


def add_backend_arg(p: argparse.ArgumentParser, extra_help: str = "") -> None:
    p.add_argument("--backend", choices=choices(Backend), default=Backend.AUTO.value,
                   help="auto: CUDA when torch sees a GPU, else the simulator" + extra_help)


def add_knob_args(p: argparse.ArgumentParser, scope: str) -> None:
    """--mode, --n, --work-us and --dynamic, bounded by knobs.LIMITS[scope]."""
    lim = LIMITS[scope]
    p.add_argument("--mode", choices=choices(Mode), required=True)
    p.add_argument("--n", type=number(lim["n"], "n"), required=True, help="kernels in the chain")
    p.add_argument("--work-us", type=number(lim["work_us"], "work_us"), required=True,
                   help="GPU work per kernel, µs")
    p.add_argument("--dynamic", action="store_true", help="the input shape changes on every call")
    add_json_flag(p)


def add_graph_knob_args(p: argparse.ArgumentParser) -> None:
    """--policy and --graph-input, the two knobs only graph mode reads (see graph_knobs)."""
    p.add_argument("--policy", choices=choices(Policy), default=None,
                   help=f"graph mode with --dynamic: what a shape miss does (default {Policy.FALLBACK.value})")
    p.add_argument("--graph-input", choices=choices(GraphInput), default=None,
                   help="graph mode: copy the input into the static buffer, or write it there (zero-copy; "
                        f"default {GraphInput.COPY.value})")


def graph_knobs(a) -> dict:
    """policy and graph_input for Knobs, refusing a flag the chosen setting would silently ignore:
    --policy outside graph mode with --dynamic, --graph-input outside graph mode or with --dynamic
    (the engine feeds a dynamic step by its policy, engine/traced_step.py)."""
    graph = a.mode == Mode.GRAPH.value
    if a.policy is not None and not (graph and a.dynamic):
        why, fix = (("without --dynamic no shape ever misses", "add --dynamic") if graph
                    else (f"--mode {a.mode} captures nothing", "use --mode graph --dynamic"))
        raise UsageError(f"--policy {a.policy} decides what a shape miss does in graph mode with --dynamic; "
                         f"{why} (leave --policy out, or {fix})")
    if a.graph_input is not None and not graph:
        raise UsageError(f"--graph-input {a.graph_input} is how graph mode feeds its static buffer; "
                         f"--mode {a.mode} has none (leave it out, or use --mode graph)")
    if a.graph_input is not None and a.dynamic:
        raise UsageError(f"--graph-input {a.graph_input} is how a replay of one captured shape feeds its static "
                         "buffer; with --dynamic each step's input takes the policy's own path (fallback, bucket "
                         "or recapture) and the flag is not read (leave it out, or drop --dynamic)")
    return {"policy": a.policy or Policy.FALLBACK.value, "graph_input": a.graph_input or GraphInput.COPY.value}


@contextlib.contextmanager
def named_as_typed(flag: str, text: str):
    """A RecordingError raised inside names the file as the user typed it after `flag`
    ("--from runs/a/rec.json: ..."), not by its file name alone (one name can be in several
    folders; tests/gpu_runs/results holds such)."""
    from .errors import RecordingError
    name = Path(text).name
    try:
        yield
    except RecordingError as e:
        said = str(e)
        for named in (text, name):  # the store names a file by its name
            if said.startswith(named + ":"):
                said = said[len(named) + 1:].lstrip()
                break
        raise RecordingError(f"{flag} {text}: {said}") from None


def tidy_json(value):
    """Floats to 12 significant digits for the printed JSON: a virtual clock's difference printed
    as 5.999999999999999 µs, a span's start as 18.6589999999851 (no figure here is known to 12)."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, dict):
        return {k: tidy_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tidy_json(v) for v in value]
    return value
