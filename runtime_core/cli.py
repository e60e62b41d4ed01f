"""`python -m runtime_core`: the command-line surface that scripts and checks rely on (design.md).

    model    closed-form prediction          measure  one measured point (cuda or sim)
    sweep    a recording of a grid            alloc    allocator comparison
    lab      a failure-mode lab               aot      export -> AOTInductor -> load
    bench    our executors vs raw torch

Bad arguments exit with status 2 and one line on stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import math
import sys


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise CliError(message)


def _number(lo: float, hi: float, integer: bool = False):
    def parse(text: str):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
        if integer and v != int(v):
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"must be between {lo:g} and {hi:g}, got {text}")
        return int(v) if integer else v
    return parse


def _add_common(p, n_max: int, work_max: float) -> None:
    p.add_argument("--mode", choices=("eager", "streams", "graph"), required=True)
    p.add_argument("--n", type=_number(1, n_max, integer=True), required=True, help="kernels in the chain")
    p.add_argument("--work-us", type=_number(0, work_max), required=True, help="GPU work per kernel, µs")
    p.add_argument("--dynamic", action="store_true", help="the input shape changes on every call")
    p.add_argument("--json", action="store_true", help="print JSON (the default output is JSON too)")


def build_parser() -> argparse.ArgumentParser:
    from .engine.measure import MAX_EXTRA_TAX_US, MAX_MEASURE_N, MAX_MEASURE_WORK_US
    ap = _Parser(prog="python -m runtime_core", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    p = sub.add_parser("model", help="closed-form prediction")
    _add_common(p, 100_000, 1_000_000)
    p.add_argument("--tax-us", type=_number(0, 100_000), required=True, help="per-launch CPU tax, µs")

    p = sub.add_parser("measure", help="measure one point")
    _add_common(p, MAX_MEASURE_N, MAX_MEASURE_WORK_US)
    p.add_argument("--extra-tax-us", type=_number(0, MAX_EXTRA_TAX_US), default=0.0)
    p.add_argument("--backend", choices=("auto", "cuda", "sim"), default="auto")
    p.add_argument("--policy", choices=("fallback", "recapture", "bucket"), default="fallback",
                   help="graph mode with --dynamic: what a shape miss does")
    p.add_argument("--timeline", action="store_true", help="include the timeline spans")

    p = sub.add_parser("sweep", help="record a grid of measured points (JSON)")
    p.add_argument("--out", required=True)
    p.add_argument("--backend", choices=("auto", "cuda", "sim"), default="auto")
    p.add_argument("--budget-s", type=_number(1, 86_400), default=480.0)
    p.add_argument("--resume", action="store_true", help="continue a partial recording at --out")
    p.add_argument("--quick", action="store_true", help="a small grid (for tests)")
    p.add_argument("--retrace", action="store_true",
                   help="trace the shipped timelines of an existing recording again (needs the device)")
    p.add_argument("--refresh", action="store_true",
                   help="recompute the derived fields of an existing recording (no device needed)")
    p.add_argument("--passes", type=_number(1, 10, integer=True), default=None,
                   help="timing passes over the grid (default: 5 on a GPU, 1 simulated)")

    for name, help_ in (("alloc", "allocator comparison"), ("lab", "a failure-mode lab"),
                        ("aot", "export -> AOTInductor -> load"), ("bench", "executors vs raw torch")):
        sub.add_parser(name, help=help_, add_help=False)
    return ap


def _cmd_model(a) -> dict:
    from .model.formulas import predict
    return predict(a.mode, a.n, a.tax_us, a.work_us, a.dynamic).metrics()


def _cmd_measure(a) -> dict:
    from .model.constants_for import constants_for
    from .engine.device import get_device
    from .engine.measure import measure
    from .model.formulas import predict
    dev = get_device(a.backend)
    res = measure(dev, a.mode, a.n, a.work_us, a.extra_tax_us, a.dynamic, a.policy)
    out = res.metrics()
    pred = predict(a.mode, a.n, res.tax_us, a.work_us, a.dynamic, constants_for(dev), a.policy)
    out["model"] = pred.metrics()
    if a.timeline:
        out["timeline"] = res.timeline_rows()
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in ("alloc", "lab", "aot", "bench"):
            return _delegate(argv[0], argv[1:])
        a = build_parser().parse_args(argv)
        if a.cmd == "sweep":
            from .recordings.sweep import run_sweep_cli
            return run_sweep_cli(a)
        out = {"model": _cmd_model, "measure": _cmd_measure}[a.cmd](a)
    except (CliError, ValueError, RuntimeError, OSError) as e:
        print(f"runtime_core: error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(out, indent=2))
    return 0


def _delegate(cmd: str, rest: list[str]) -> int:
    """Subcommands that live in their own modules, each with a `cli(argv) -> int`."""
    import importlib
    mod = {"alloc": ".allocator.cli", "lab": ".labs", "aot": ".aot.cli", "bench": ".engine.bench"}[cmd]
    try:
        m = importlib.import_module(mod, __package__)
    except ModuleNotFoundError as e:
        if e.name and e.name.startswith(__package__):
            raise CliError(f"'{cmd}' is not available in this build") from None
        raise
    return m.cli(rest)
