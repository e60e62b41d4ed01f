"""The sweep's grid: which widget points a recording measures, and how a point is keyed.

A point is keyed by its *requested* knobs: mode, N, work, extra tax, dynamic, the miss policy,
the graph input path and the launcher (our Python executors, or the C++ chain launcher of the
low-tax slice). In a recording, non-default values are written only where they apply:
`dynamic_policy` (not fallback), `graph_input` (zero-copy) and `launcher` (cpp).
"""
from __future__ import annotations

from ..knobs import GraphInput, Knobs, Mode, Policy

GRID_N = (1, 10, 30, 120, 300, 1000)
GRID_WORK_US = (0, 1, 2, 4, 6, 10, 20, 40, 100)
MODES = tuple(m.value for m in Mode)
TAX_SLICE = dict(n=120, work_us=(2, 40), extra_tax_us=(6, 20))
POLICY_SLICE = dict(n=(10, 120), work_us=(2,), policies=("recapture", "bucket"))
# The low-tax slice: the chain launched from C++ (a few µs per launch), where the tax sits below
# the work and graphs win only by the GPU-side gap they remove.
LOW_TAX_SLICE = dict(n=(10, 120, 1000), work_us=(2, 10, 40))
# Settings whose full timelines ship: the seed's defaults and the checkpoint's steps.
TIMELINE_SETTINGS = [(m, 120, w, False) for m in MODES for w in (2, 40)] + [("graph", 120, 2, True)]


def _pt(mode, n, work, extra=0, dynamic=False, policy="fallback", graph_input="copy", launcher="python") -> dict:
    return dict(mode=mode, n=n, work_us=work, extra_tax_us=extra, dynamic=dynamic, policy=policy,
                graph_input=graph_input, launcher=launcher)


def grid(quick: bool = False) -> list[dict]:
    """Every point our executors measure, as knob dicts, in the order they are measured."""
    ns, works = ((10, 120), (2, 40)) if quick else (GRID_N, GRID_WORK_US)
    pts = [_pt(m, n, w, dynamic=d) for d in (False, True) for m in MODES for n in ns for w in works]
    if not quick:  # the quick grid (tests) is the base grid alone
        pts += [_pt("graph", n, w, graph_input="zero-copy") for n in ns for w in works]
        pts += [_pt(m, TAX_SLICE["n"], w, extra=x) for m in MODES for w in TAX_SLICE["work_us"]
                for x in TAX_SLICE["extra_tax_us"]]
        pts += [_pt("graph", n, w, dynamic=True, policy=p) for p in POLICY_SLICE["policies"]
                for n in POLICY_SLICE["n"] for w in POLICY_SLICE["work_us"]]
    return pts


def low_tax_grid(quick: bool = False) -> list[dict]:
    """The low-tax slice, measured by the device's native chain launcher (graph: zero-copy).
    Empty in the quick grid."""
    if quick:
        return []
    return [_pt(m, n, w, graph_input="zero-copy" if m == "graph" else "copy", launcher="cpp")
            for m in MODES for n in LOW_TAX_SLICE["n"] for w in LOW_TAX_SLICE["work_us"]]


def _field(p: dict, key: str, default: str, recorded_as: str | None = None) -> str:
    return p.get(recorded_as or key, p.get(key, default))


def knobs_of(p: dict, tax_us: float | None = None) -> Knobs:
    """The Knobs of a grid entry or a recorded point (with `tax_us` if given)."""
    k = Knobs(p["mode"], p["n"], float(p["work_us"]), extra_tax_us=float(p.get("extra_tax_us", 0)),
              dynamic=bool(p["dynamic"]), policy=_field(p, "policy", Policy.FALLBACK, "dynamic_policy"),
              graph_input=_field(p, "graph_input", GraphInput.COPY))
    return k if tax_us is None else k.replace(tax_us=tax_us)


def key(p: dict) -> tuple:
    """The identity of a point: its requested knobs, its graph input and its launcher."""
    return (p["mode"], p["n"], float(p["work_us"]), float(p.get("extra_tax_us", 0)), bool(p["dynamic"]),
            _field(p, "policy", "fallback", "dynamic_policy"), _field(p, "graph_input", "copy"),
            _field(p, "launcher", "python"))


def group(p: dict) -> tuple:
    """Points whose driver-call counts are the same (they don't depend on work)."""
    k = key(p)
    return (k[0], k[1], k[4], k[5], k[3], k[6], k[7])


def new_point(k: dict) -> dict:
    """A recording's point for grid entry `k`, before any pass: defaults left out."""
    p = {"mode": k["mode"], "n": k["n"], "work_us": k["work_us"], "extra_tax_us": k["extra_tax_us"],
         "dynamic": k["dynamic"], "wall_us_passes": []}
    if k["policy"] != "fallback":
        p["dynamic_policy"] = k["policy"]
    if k["graph_input"] != "copy":
        p["graph_input"] = k["graph_input"]
    if k["launcher"] != "python":
        p["launcher"] = k["launcher"]
    return p
