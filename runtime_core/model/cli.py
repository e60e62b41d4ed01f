"""`python -m runtime_core model` (the closed-form prediction of one setting) and `accuracy`
(the calibrated model against a recording, exit 1 below the target); `measure` and `bench`
register from measure_cli.py."""
from __future__ import annotations

from pathlib import Path

from ..cli_args import add_graph_knob_args, add_knob_args, graph_knobs, number, path, refuse_unused
from ..constants import TEXTBOOK
from ..errors import UsageError
from ..knobs import LIMITS, SEED_TAX_US, Knobs
from ..words import a_kind
from . import measure_cli
from .formulas import predict

SHIPPED_SWEEP = "lessons/recordings/sweep_h200.json"  # as help texts name it
# the shipped sweep, found from any working directory (the package's own checkout)
DEFAULT_RECORDING = str(Path(__file__).resolve().parents[2] / SHIPPED_SWEEP)


def register(sub) -> None:
    p = sub.add_parser("model", help="closed-form prediction")
    add_knob_args(p, "model")
    p.add_argument("--tax-us", type=number(LIMITS["model"]["tax_us"], "tax_us"), default=None,
                   help=f"per-launch CPU tax, µs (default: {SEED_TAX_US:g} for the textbook constants, "
                        "the recording's measured tax for the calibrated ones)")
    p.add_argument("--constants", choices=("textbook", "calibrated"), default="textbook",
                   help="textbook: the seed's formulas (720 µs of eager overhead at its defaults); "
                        "calibrated: the constants a recording measured on its GPU")
    p.add_argument("--recording", type=path, default=None,
                   help=f"with --constants calibrated: the sweep recording whose meta.calibration it uses "
                        f"(default {SHIPPED_SWEEP})")
    add_graph_knob_args(p)
    p.set_defaults(func=run)

    p = sub.add_parser("accuracy", help="the calibrated model against a recording (exit 1 below target)")
    p.add_argument("--recording", type=path, default=DEFAULT_RECORDING,
                   help=f"a sweep recording, or a diagnose recording judged by its own targets "
                        f"(default {DEFAULT_RECORDING})")
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.add_argument("--bounds", action="store_true",
                   help="also check every bound of the recording (model/bounds.py); exit 1 if one fails")
    p.set_defaults(func=run_accuracy)
    p = sub.add_parser("node-costs", help="what a CUDA-graph node costs beyond its kernel, on kernels of our "
                                          "own making (CUDA, ~100 s; the diagnosis's band reads it)")
    p.add_argument("--out", type=path, required=True, help="the node_costs recording to write")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--mix", action="store_true",
                   help="instead: time memsets, copies and other kernels between kernel nodes (model/node_mix.py, "
                        "~30 s) and write them into the existing --out recording's mix section")
    p.add_argument("--stream", action="store_true",
                   help="instead: time each kernel's gap in an eager stream the GPU runs ahead of the host "
                        "(model/stream_gaps.py, ~60 s) and write it into the existing --out recording's stream section")
    p.set_defaults(func=run_node_costs, parser=p)
    measure_cli.register(sub)  # `measure` and `bench`: their JSON carries this model's prediction


def run_node_costs(a) -> dict:
    import torch
    if a.mix and a.stream:
        raise UsageError("node-costs: give --mix or --stream, not both (each is its own process)")
    if a.mix or a.stream:  # they write into the existing recording: --force replaces nothing
        flag = "mix" if a.mix else "stream"
        refuse_unused(a, a.parser, {"out", flag}, f"with --{flag} (it writes into the existing --out recording)")
    if not torch.cuda.is_available():
        raise UsageError("node-costs measures CUDA graphs: it needs a CUDA GPU (the shipped H200 recording "
                         "is lessons/recordings/node_costs_h200.json)")
    if a.mix:
        from .node_mix import record_mix
        return record_mix(a.out)
    if a.stream:
        from .stream_gaps import record_stream
        return record_stream(a.out)
    from .node_costs import record
    return record(a.out, force=a.force)


def run(a) -> dict:
    graph = graph_knobs(a)  # a flag this setting would ignore is refused
    consts, tax = TEXTBOOK, SEED_TAX_US
    if a.recording is not None and a.constants != "calibrated":
        raise UsageError(f"--recording {a.recording}: the textbook constants read no recording "
                         "(add --constants calibrated to use its measured ones)")
    if a.constants == "calibrated":
        rec = _load(a.recording or DEFAULT_RECORDING, kind="sweep")
        consts, tax = rec.meta.calibration, rec.meta.intrinsic_tax_us
    k = Knobs(a.mode, a.n, a.work_us, tax_us=a.tax_us if a.tax_us is not None else tax,
              dynamic=a.dynamic, **graph)
    out = predict(k, consts).metrics()
    out["constants"] = a.constants
    return out


# kind -> judge(rec, as_json) -> exit code, for the kinds above this layer (diagnose/cli.py adds
# "diagnose" when it registers its subcommands: the model layer never imports it)
ACCURACY_OF: dict = {}


def run_accuracy(a) -> dict | int:
    """Print the report; exit 1 when a recording misses its targets: a sweep's ±15% share (and,
    with --bounds, every bound), a zoo diagnose recording's speedup share, an external one's three
    targets (speedups, verdicts, the band)."""
    import json
    rec = _load(a.recording)
    if rec.meta.kind in ACCURACY_OF:  # a kind a higher layer judges (diagnose registers its own)
        if a.bounds:
            raise UsageError(f"--bounds checks a sweep recording's model bounds; {a.recording} is "
                             f"{a_kind(rec.meta.kind)} recording (leave --bounds out)")
        from ..errors import RecordingError
        try:
            return ACCURACY_OF[rec.meta.kind](rec, a.json)
        except RecordingError as e:  # a field the judge needs, named with the file it is in
            raise RecordingError(f"--recording {a.recording}: {e}") from None
    if rec.meta.kind != "sweep":
        raise UsageError(f"--recording {a.recording}: {a_kind(rec.meta.kind)} recording has no accuracy targets "
                         "(give a sweep or a diagnose recording)")
    from .accuracy import TARGET_SHARE, accuracy
    acc = accuracy(rec)
    rows = None
    if a.bounds:
        from .bounds import check, table
        rows = check(rec)
    if a.json:
        from ..cli_args import tidy_json
        print(json.dumps(tidy_json({**acc, "bounds": rows} if rows else acc), indent=2))  # 12 digits, as every --json
    else:
        print(f"{rec.label()}: {acc['within']}/{acc['total']} points within ±{acc['tolerance']:.0%} "
              f"({acc['share']:.1%}; target ≥ {TARGET_SHARE:.0%})")
        for m in acc["misses"]:
            print(f"  miss {m['mode']:>7} N={m['n']:<5} work={m['work_us']:<5g}{_setting(m)} "
                  f"{m['error_pct']:+6.1f}%  {m['reason']}")
        if rows:
            print()
            print(table(rows))
    ok = acc["share"] >= TARGET_SHARE and all(r["ok"] for r in rows or [])
    return 0 if ok else 1


def _load(text: str, kind: str | None = None):
    """The recording --recording names; its errors name the path as typed, not only the file's
    name (bert_base_4_bf16.json is in four folders of tests/gpu_runs/results)."""
    from ..cli_args import named_as_typed
    from ..recordings import load
    path = Path(text)
    if not path.exists():
        raise UsageError(f"--recording {text}: no such file")
    with named_as_typed("--recording", text):
        return load(path, kind=kind)


def _setting(m: dict) -> str:
    """What else tells a missed point from its neighbours at the same mode, N and work: extra host
    tax, dynamic shapes with their miss policy, the C++ launcher (empty for a plain point)."""
    parts = ([f"tax+{m['extra_tax_us']:g}"] if m.get("extra_tax_us") else []) \
        + ([f"dynamic/{m['policy']}"] if m.get("dynamic") else []) \
        + (["C++ launcher"] if m.get("launcher", "python") != "python" else [])
    return (" " + " ".join(parts)) if parts else ""
