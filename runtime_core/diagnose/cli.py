"""`python -m runtime_core diagnose`: will CUDA graphs help this model? Predicted, then measured.

    diagnose --model cnn --batch 1 [--seq S] [--dtype bf16] --json     one diagnosis, every variant
    diagnose --model cnn --sweep --json                                 step time against batch 1..512
    diagnose --sweep --record PATH [--budget-s S] [--resume]            the recording for the page
    diagnose --set external --record PATH [--budget-s S] [--resume]     public networks (validation/),
             [--fresh-processes [--gpus N]]                             in this process or one each
    diagnose --set heldout --fresh-processes --record PATH ...          public networks outside that grid
    diagnose --model cnn --plan zipf [--max-size N] [--budget-mb M]     bucket sets, from a recording
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..cli_args import add_backend_arg, add_json_flag, number, path, refuse_unused
from ..errors import UsageError
from ..knobs import Range
from .measure_variants import VARIANTS
from .planner import PRESETS
from .spec import BATCH, DTYPES

MODEL_HELP = ("a zoo model (decoder, mlp, cnn, encoder; on the simulator fake-mlp, fake-cnn, fake-encoder, "
              "fake-decoder), or package.module:factory for your own network. CAUTION: package.module:factory "
              "IMPORTS AND RUNS YOUR CODE (the CLI only, never the web page); the factory takes batch, seq, "
              "dtype and device keywords and returns (model, inputs)")


def register(sub) -> None:
    from ..model.cli import ACCURACY_OF
    from .accuracy_cli import diagnose_accuracy
    ACCURACY_OF["diagnose"] = diagnose_accuracy  # `accuracy --recording` judges diagnose recordings here
    p = sub.add_parser("diagnose", help="will CUDA graphs help this model? predicted, then measured",
                       description="Profile one step of a model, predict its eager and CUDA-graph step times "
                                   "from the calibrated launch model, then measure eager, our graph capture, "
                                   "make_graphed_callables and torch.compile. " + MODEL_HELP + ".")
    p.add_argument("--model", help=MODEL_HELP)
    p.add_argument("--batch", type=number(BATCH, "batch"), help="batch size (one diagnosis)")
    p.add_argument("--seq", type=number(Range(1, 1_000_000, integer=True), "seq"),
                   help="the model's shape knob: tokens (encoder), KV-cache slots (decoder), image side (cnn)")
    p.add_argument("--dtype", choices=DTYPES, default="fp32")
    add_backend_arg(p)
    p.add_argument("--variants", help=f"comma-separated, from {', '.join(VARIANTS)} (default: all this device runs)")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile variants (~12 s each)")
    p.add_argument("--constants", choices=("live", "recorded"), default="live",
                   help="calibrate this GPU now (~3 s), or use the best sweep recording's constants")
    p.add_argument("--sweep", action="store_true", help="batch sizes 1..512, eager and our graph, and the crossover")
    p.add_argument("--record", type=path, metavar="PATH", help="with --sweep: write the recording for students without a GPU")
    p.add_argument("--set", dest="grid", choices=("zoo", "external", "heldout"), default="zoo",
                   help="with --record: our zoo (with --sweep), the external grid of public networks "
                        "(validation/external.py: torchvision and transformers, --no-compile), or the held-out "
                        "public networks outside it (validation/heldout.py; with --fresh-processes)")
    p.add_argument("--fresh-processes", action="store_true",
                   help="with --set external or heldout: diagnose each point in its own fresh process, as a user runs it "
                        "(about 70-85 s a point on an H200 or H100)")
    p.add_argument("--gpus", type=number(Range(1, 64, integer=True), "gpus"), default=1,
                   help="with --fresh-processes: run this many points at once, each process on its own GPU and "
                        "its own share of the CPU cores")
    p.add_argument("--resume", action="store_true", help="continue a partial recording at --record")
    p.add_argument("--force", action="store_true", help="replace an existing --record or --trace-out file")
    p.add_argument("--budget-s", type=number(Range(0.1, 86_400), "budget_s"), default=420.0,
                   help="stop a recording before this many seconds (then --resume)")
    p.add_argument("--passes", type=number(Range(1, 20, integer=True), "passes"), default=None,
                   help="with --record: timing passes over the base points, minutes apart; each point keeps "
                        "their median (default: 3 on a GPU, 1 on the simulator; --resume adds missing ones)")
    p.add_argument("--quick", action="store_true", help="a small recording grid (for tests)")
    p.add_argument("--trace-out", type=path, metavar="PATH", help="write the profiled eager step as a Chrome/Perfetto trace")
    p.add_argument("--timeline", action="store_true", help="include the two-lane timelines in the JSON")
    p.add_argument("--plan", choices=PRESETS, help="bucket sets for this request preset (from a recording)")
    p.add_argument("--max-size", type=number(Range(1, 4096, integer=True), "max_size"), default=None,
                   help="largest request size (default: 256, or the largest the recording measured if smaller)")
    p.add_argument("--zipf-exponent", type=number(Range(0, 4), "zipf_exponent"), default=1.1)
    p.add_argument("--sizes", default="", help='with --plan list: request sizes, e.g. "1,1,2,8,17"')
    p.add_argument("--budget-mb", type=number(Range(0, 1_000_000), "budget_mb"), default=None,
                   help="graph memory budget in MiB (default: half of what powers of two need, at least one graph of the largest size)")
    p.add_argument("--size-kind", choices=("batch", "tokens"), default="batch",
                   help="with --plan: request sizes are batch sizes, or token counts (a model with a token sweep)")
    p.add_argument("--from", dest="recording", type=path, metavar="PATH", help="with --plan: the diagnose recording to use")
    add_json_flag(p)
    p.set_defaults(func=run, parser=p)


# the options each kind of call reads (json everywhere); any other one given exits 2, naming it.
# TOLERATED: ../shared/design.md's stable call `diagnose --model NAME --batch B [--seq S] [--dtype D]
# [--sweep] [--record PATH]` keeps working where --sweep or --record leaves some of them unread:
# those are named on stderr, not refused
USES = {
    "plan": ({"model", "plan", "max_size", "budget_mb", "size_kind", "recording"}, "with --plan"),
    "public": ({"record", "grid", "fresh_processes", "gpus", "resume", "force", "budget_s", "backend", "no_compile",
                "sweep", "model", "passes"},  # those three refused below, in words of their own
               "for a grid of public networks (--set external or heldout)"),
    "record": ({"record", "sweep", "model", "grid", "resume", "force", "budget_s", "passes", "quick", "no_compile",
                "constants", "backend"}, "for the sweep's recording (--sweep --record)"),
    "sweep": ({"model", "sweep", "seq", "dtype", "backend", "constants"}, "with --sweep (batch 1..512)"),
    "one": ({"model", "batch", "seq", "dtype", "backend", "variants", "no_compile", "constants", "trace_out", "force",
             "timeline"}, "for one diagnosis"),
}
TOLERATED = {"sweep": {"batch"}, "record": {"batch", "seq", "dtype"}}


def _refuse_unused(a) -> None:
    kind = ("plan" if a.plan else "public" if a.grid in ("external", "heldout") and a.record
            else "record" if a.record else "sweep" if a.sweep else "one")
    used, what = USES[kind]
    used = used | {"json"}
    if kind == "plan":  # a preset's own knob: the exponent for zipf, the sizes for list
        used |= {"zipf_exponent"} if a.plan == "zipf" else {"sizes"} if a.plan == "list" else set()
        what = f"with --plan {a.plan}"
    if kind == "one" and not a.trace_out:
        used = used - {"force"}
    refuse_unused(a, a.parser, used, what, TOLERATED.get(kind, frozenset()))


def run(a) -> dict:
    from ..env_check import core_pin
    pin_notice = core_pin()[1]
    if pin_notice:
        print(f"diagnose: note: {pin_notice}", file=sys.stderr)
    if a.resume and not a.record:
        raise UsageError("--resume continues a recording: give --record PATH")
    if a.resume and a.force:
        raise UsageError("--resume continues the recording at --record and --force replaces it: give one")
    if a.trace_out and (a.sweep or a.record or a.plan):
        raise UsageError("--trace-out traces one step: give --model NAME --batch B without --sweep, --record or --plan")
    if a.passes and not a.record:
        raise UsageError("--passes is for a recording: give --sweep --record PATH")
    public = a.grid in ("external", "heldout")
    if public and not a.record:
        raise UsageError(f"--set {a.grid} is for a recording: give --record PATH")
    if a.fresh_processes and not public:
        raise UsageError("--fresh-processes is for a grid of public networks: give --set external (or heldout) "
                         "--record PATH")
    if a.gpus != 1 and not a.fresh_processes:
        raise UsageError("--gpus runs several fresh processes at once: add --set external (or heldout) "
                         "--fresh-processes")
    if a.record and not a.sweep and not public:
        raise UsageError("--record writes the sweep's recording: add --sweep (or --set external)")
    _refuse_unused(a)
    if a.record and public:
        if a.sweep or a.model or a.passes:
            raise UsageError(f"--set {a.grid} records its own fixed grid: leave out --sweep, --model and --passes")
        from .record_external import run_external
        from .runners import get_runner
        runner = get_runner(a.backend)
        try:
            doc = run_external(runner, Path(a.record), a.budget_s, a.resume, a.force, fresh=a.fresh_processes,
                               gpus=a.gpus, grid=a.grid)
        finally:
            runner.close()
        return {"out": a.record, "points": len(doc["points"]), "complete": doc["meta"]["complete"],
                "accuracy": doc.get("summary", {}).get("accuracy", {})}
    if a.plan:
        from .plan_cli import run_plan
        return run_plan(a)
    from .runners import get_runner
    if a.record:
        from .record import run_record
        runner = get_runner(a.backend)
        try:
            doc = run_record(runner, Path(a.record), a.budget_s, a.resume, a.force, a.quick,
                             [a.model] if a.model else None, variants=not a.no_compile, constants=a.constants,
                             passes=a.passes)
        finally:
            runner.close()
        return {"out": a.record, "points": len(doc["points"]), "planner_cases": len(doc["planner"]),
                "complete": doc["meta"]["complete"], "accuracy": _brief(doc.get("summary", {}))}
    if not a.model:
        raise UsageError("--model is required (a zoo name, or package.module:factory)")
    return _sweep(a) if a.sweep else _one(a)


def _variants(a, runner) -> tuple:
    names = tuple(runner.variants)
    if a.variants:
        names = tuple(v.strip() for v in a.variants.split(",") if v.strip())
        if not names:  # ",,," or " ": a list with nothing in it is no choice, not the default one
            raise UsageError(f"--variants {a.variants!r} names no variant; choose from {', '.join(VARIANTS)}")
        bad = [v for v in names if v not in VARIANTS]
        if bad:
            raise UsageError(f"unknown variant {bad[0]!r}; choose from {', '.join(VARIANTS)}")
        missing = [v for v in names if v not in runner.variants]
        if missing:
            raise UsageError(f"variant {missing[0]} needs a CUDA GPU; here only {', '.join(runner.variants)} run")
    if a.no_compile:
        names = tuple(v for v in names if v not in ("compile", "reduce_overhead"))
    return tuple(dict.fromkeys(("eager", "our_graph") + names))


def _one(a) -> dict:
    from .diagnosis import diagnose, prepare
    from .runners import get_runner
    from .spec import Spec
    if a.batch is None:
        raise UsageError("--batch is required for one diagnosis (or give --sweep)")
    if a.trace_out:
        _check_writable(Path(a.trace_out), a.force)
    runner = get_runner(a.backend)
    lap = _Laps()
    try:
        spec = prepare(runner, Spec(a.model, a.batch, a.seq, a.dtype))
        variants = _variants(a, runner)
        machine = runner.machine(a.constants)
        lap("calibrate_s")
        prof = runner.profile(spec)
        lap("profile_s")
        out = diagnose(runner, spec, machine, variants, profile=prof)
        lap("diagnose_s")
    finally:
        runner.close()
    out["phase_s"] = lap.done  # where one call's seconds went (the imports come before any of them)
    if a.trace_out:
        _write_trace(Path(a.trace_out), prof, out, spec, a.force)
    out["machine"] = machine.as_dict()
    if not a.timeline:
        out.pop("timelines", None)
        out.pop("profile", None)
    return out


class _Laps:
    """Seconds between calls: lap("name") records the time since the previous lap (or since made)."""

    def __init__(self):
        import time
        self._clock = time.monotonic
        self._t, self.done = self._clock(), {}

    def __call__(self, name: str) -> None:
        now = self._clock()
        self.done[name], self._t = round(now - self._t, 2), now


def _sweep(a) -> dict:
    from .diagnosis import prepare
    from .runners import get_runner
    from .spec import Spec
    from .sweep import sweep_model
    runner = get_runner(a.backend)
    try:
        spec = prepare(runner, Spec(a.model, 1, a.seq, a.dtype))
        machine = runner.machine(a.constants)
        out = sweep_model(runner, spec.model, machine, spec.dtype, spec.seq)
    finally:
        runner.close()
    out["machine"] = machine.as_dict()
    return out


def _check_writable(path: Path, force: bool) -> None:
    from ..recordings.store import check_target
    check_target(path, force=force)  # before any work; an existing trace needs --force


def _write_trace(path: Path, prof: dict, out: dict, spec, force: bool) -> None:
    """Through a temporary file and a rename, as every writer: a full disk leaves the old trace."""
    from .. import atomic
    from ..engine.trace_export import spans_to_chrome_trace
    text = (json.dumps(prof["chrome_trace"]) if prof.get("chrome_trace")
            else spans_to_chrome_trace(out["timelines"]["eager"], f"diagnose {spec.label()} (eager step)"))
    atomic.write_text(path, text, overwrite=force)


def _brief(summary: dict) -> dict:
    acc = summary.get("accuracy") or {}
    return {k: acc.get(k) for k in ("eligible", "within", "share", "meets_speedup_target", "meets_crossover_target")}
