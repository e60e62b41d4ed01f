"""`python -m runtime_core model`: the closed-form prediction of one setting, as JSON."""
from __future__ import annotations

from ..cli import add_knob_args, number
from ..knobs import LIMITS, Knobs
from .formulas import predict


def register(sub) -> None:
    p = sub.add_parser("model", help="closed-form prediction")
    add_knob_args(p, "model")
    p.add_argument("--tax-us", type=number(LIMITS["model"]["tax_us"], "tax_us"), required=True,
                   help="per-launch CPU tax, µs")
    p.set_defaults(func=run)


def run(a) -> dict:
    return predict(Knobs(a.mode, a.n, a.work_us, tax_us=a.tax_us, dynamic=a.dynamic)).metrics()
