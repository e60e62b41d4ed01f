"""`python -m runtime_core measure` (one measured point) and `bench` (ours vs raw torch).

They live in the model's layer because `measure` prints the calibrated model's prediction beside
what it measured. Both price the request first (engine/cost.py) and refuse, exit 2 with one line,
what would take more than about a minute; `measure --timeline` prints at most timeline_limit.MAX_SPANS spans.
"""
from __future__ import annotations

from ..cli_args import (add_backend_arg, add_graph_knob_args, add_json_flag, add_knob_args, graph_knobs, number, path,
                        refuse_unused)
from ..errors import UsageError
from ..knobs import LIMITS, Knobs, Range


def register(sub) -> None:
    p = sub.add_parser("measure", help="measure one point")
    add_knob_args(p, "measure")
    p.add_argument("--extra-tax-us", type=number(LIMITS["measure"]["extra_tax_us"], "extra_tax_us"),
                   default=0.0, help="host busy-work added before each launch, µs")
    add_backend_arg(p)
    add_graph_knob_args(p)
    p.add_argument("--tax-us", type=number(LIMITS["measure"]["tax_us"], "tax_us"), default=None,
                   help="the simulator's launch tax, µs (a GPU has its own: use --extra-tax-us there)")
    p.add_argument("--timeline", action="store_true",
                   help="include the timeline spans (at most 2000: longer timelines are thinned, "
                        "and timeline_truncated says so)")
    p.set_defaults(func=run_measure)

    p = sub.add_parser("bench", help="executors vs raw torch (needs a GPU)")
    p.add_argument("--n", type=number(Range(1, 5000, integer=True), "n"), default=120)
    p.add_argument("--work-us", type=number(Range(0, 1000), "work_us"), default=2.0)
    add_json_flag(p)
    p.add_argument("--record", type=path, metavar="PATH", help="also write a bench recording (labs.bench)")
    p.add_argument("--force", action="store_true", help="replace an existing --record file")
    p.set_defaults(func=run_bench_cli, parser=p)


def run_measure(a) -> dict:
    from ..engine.cost import check_measure, cost_model
    from ..engine.measure import measure
    from ..engine.timeline_limit import decimate
    from ..recordings.shipped import get_device
    from .calibrate import constants_for
    from .formulas import predict
    graph = graph_knobs(a)  # a flag this setting would ignore is refused before anything runs
    dev = get_device(a.backend, **({} if a.tax_us is None else {"tax_us": a.tax_us}))
    if a.tax_us is not None and dev.known_constants() is None:
        raise UsageError(f"--tax-us sets the simulator's launch tax; {dev.name} has its own "
                         f"(add host work with --extra-tax-us instead)")
    k = Knobs(a.mode, a.n, a.work_us, extra_tax_us=a.extra_tax_us, dynamic=a.dynamic, **graph)
    check_measure(k, cost_model(dev), device_name=dev.name)  # priced before it runs
    res = measure(dev, k)
    out = res.metrics()
    out["model"] = predict(k.replace(tax_us=res.tax_us), constants_for(dev)).metrics()
    if a.timeline:
        out["timeline"], truncated = decimate(res.timeline_rows())
        if truncated:
            out["timeline_truncated"] = truncated
    return out


def run_bench_cli(a) -> dict | int:
    from ..engine.bench import print_table, run_bench
    from ..engine.cost import check_bench
    from ..engine.device import cuda_available
    if not a.record:  # --force without --record would replace nothing
        refuse_unused(a, a.parser, {"n", "work_us", "json", "record"}, "without --record")
    if not cuda_available():
        raise UsageError("bench needs a CUDA GPU: it compares our executors with raw torch on the device")
    if a.record:
        from ..recordings import store
        store.check_target(a.record, a.force)
    check_bench(a.n, a.work_us)
    out = run_bench(a.n, a.work_us)
    if a.record:
        meta = store.new_meta("bench", out["device_name"], out["torch_version"], "cuda",
                              command="python -m runtime_core bench --json")
        store.write_own(a.record, {"meta": meta, "points": [], "labs": {"bench": out}})
    if a.json:
        return out
    print_table(out)
    return 0
