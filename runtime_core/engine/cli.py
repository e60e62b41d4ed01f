"""`python -m runtime_core measure` (one measured point) and `bench` (ours vs raw torch).

Both price the request first (engine/cost.py) and refuse, exit 2 with one line, what would take
more than about a minute; `measure --timeline` prints at most timeline_limit.MAX_SPANS spans.
"""
from __future__ import annotations

from ..cli import add_backend_arg, add_json_flag, add_knob_args, number
from ..errors import UsageError
from ..knobs import LIMITS, Knobs, Policy, Range, choices


def register(sub) -> None:
    p = sub.add_parser("measure", help="measure one point")
    add_knob_args(p, "measure")
    p.add_argument("--extra-tax-us", type=number(LIMITS["measure"]["extra_tax_us"], "extra_tax_us"),
                   default=0.0, help="host busy-work added before each launch, µs")
    add_backend_arg(p)
    p.add_argument("--policy", choices=choices(Policy), default=Policy.FALLBACK.value,
                   help="graph mode with --dynamic: what a shape miss does")
    p.add_argument("--timeline", action="store_true",
                   help="include the timeline spans (at most 2000: longer timelines are thinned, "
                        "and timeline_truncated says so)")
    p.set_defaults(func=run_measure)

    p = sub.add_parser("bench", help="executors vs raw torch (needs a GPU)")
    p.add_argument("--n", type=number(Range(1, 5000, integer=True), "n"), default=120)
    p.add_argument("--work-us", type=number(Range(0, 1000), "work_us"), default=2.0)
    add_json_flag(p)
    p.set_defaults(func=run_bench_cli)


def run_measure(a) -> dict:
    from ..model.calibrate import constants_for
    from ..model.formulas import predict
    from .cost import check_measure
    from .device import get_device, resolve_backend
    from .measure import measure
    from .timeline_limit import decimate
    backend = resolve_backend(a.backend)
    k = Knobs(a.mode, a.n, a.work_us, extra_tax_us=a.extra_tax_us, dynamic=a.dynamic, policy=a.policy)
    check_measure(k, backend)  # before the device is even set up: a refusal costs nothing
    dev = get_device(backend)
    res = measure(dev, k)
    out = res.metrics()
    out["model"] = predict(k.replace(tax_us=res.tax_us), constants_for(dev)).metrics()
    if a.timeline:
        out["timeline"], truncated = decimate(res.timeline_rows())
        if truncated:
            out["timeline_truncated"] = truncated
    return out


def run_bench_cli(a) -> dict | int:
    from .bench import print_table, run_bench
    from .cost import check_bench
    from .device import cuda_available
    if not cuda_available():
        raise UsageError("bench needs a CUDA GPU: it compares our executors with raw torch on the device")
    check_bench(a.n, a.work_us)
    out = run_bench(a.n, a.work_us)
    if a.json:
        return out
    print_table(out)
    return 0
