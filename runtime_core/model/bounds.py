"""The bounds a recording must meet, and the accuracy target, as one table (`make check-gpu`).

Each row is one bound over every point it applies to: its name, the recording's worst value,
the target, and pass or fail. Slack for noise is max(5%, 3 µs).

    eager ≥ N·tax           blocking dispatch pays at least the launch tax on every kernel
    streams ≥ its bound     async dispatch is no faster than its launches or its kernels
    streams ≤ eager         from N=10 (at N=1 both are one launch and one sync)
    graph ≤ streams         from N=10, zero-copy graph input
    one call per replay     a static graph step is 1 driver call
    fallback is invalid     a shape miss clears graph-capture-valid, and dispatches N launches
    seed defaults           graph ≥ 4× faster than eager at N=120, 2 µs
    model accuracy          the calibrated model within ±15% at ≥ 90% of the points
"""
from __future__ import annotations

from ..knobs import GraphInput, Mode, Policy
from ..recordings.lookup import point_at
from ..recordings.types import Point, Recording
from .accuracy import TARGET_SHARE, TOLERANCE, accuracy


def slack(x: float) -> float:
    return max(0.05 * x, 3.0)


def _row(bound: str, value: float, target: str, ok: bool, where: str = "") -> dict:
    return {"bound": bound, "value": value, "target": target, "ok": bool(ok), "worst_at": where}


def _at(p: Point) -> str:
    extra = f", +{p.extra_tax_us:g} µs tax" if p.extra_tax_us else ""
    return f"{p.mode} N={p.n} work={p.work_us:g}{extra}{' dynamic' if p.dynamic else ''} ({p.launcher})"


def _twin(rec: Recording, p: Point, mode: str, graph_input: str = "copy") -> Point | None:
    return point_at(rec, mode, p.n, p.work_us, p.extra_tax_us, p.dynamic, "fallback", graph_input, p.launcher)


def _worst(pairs, bound: str, target: str, ok) -> dict:
    """pairs: (value, point) for every point a bound applies to; the row reports the worst."""
    pairs = list(pairs)
    if not pairs:
        return _row(bound, None, target, False, "no points")  # None: JSON null (NaN is not JSON)
    value, p = max(pairs, key=lambda vp: vp[0])
    return _row(bound, round(value, 3), target, ok(value), _at(p))


def check(rec: Recording) -> list[dict]:
    """Every bound of the module docstring over `rec`, one row each."""
    pts = [p for p in rec.points if p.policy == Policy.FALLBACK]
    rows = []
    eager = [p for p in pts if p.mode == Mode.EAGER]
    rows.append(_worst(((0.9 * p.n * p.tax_us - p.launch_overhead_us, p) for p in eager),
                       "eager overhead ≥ 0.9·N·tax (µs short)", "≤ 0", lambda v: v <= 0))
    streams = [p for p in pts if p.mode == Mode.STREAMS]
    rows.append(_worst(((0.9 * max(p.n * p.tax_us, p.kernel_time_us) - p.wall_us, p) for p in streams),
                       "streams ≥ 0.9·max(N·tax, GPU busy) (µs short)", "≤ 0", lambda v: v <= 0))
    pairs = [(s.wall_us - e.wall_us - slack(e.wall_us), s) for s in streams if s.n >= 10
             if (e := _twin(rec, s, "eager"))]
    rows.append(_worst(pairs, "streams ≤ eager from N=10 (µs over, after slack)", "≤ 0", lambda v: v <= 0))
    zc = [p for p in pts if p.mode == Mode.GRAPH and not p.dynamic and p.graph_input == GraphInput.ZERO_COPY]
    pairs = [(g.wall_us - s.wall_us - slack(s.wall_us), g) for g in zc if g.n >= 10
             if (s := _twin(rec, g, "streams"))]
    rows.append(_worst(pairs, "graph (zero-copy) ≤ streams from N=10 (µs over, after slack)", "≤ 0",
                       lambda v: v <= 0))
    static = [p for p in pts if p.mode == Mode.GRAPH and not p.dynamic and p.driver_calls is not None]
    rows.append(_worst(((abs(p.driver_calls - 1), p) for p in static),
                       "driver calls per replay, minus 1", "= 0", lambda v: v == 0))
    miss = [p for p in pts if p.mode == Mode.GRAPH and p.dynamic and p.driver_calls is not None]
    rows.append(_worst(((float(p.graph_valid) + abs(p.driver_calls - p.n), p) for p in miss),
                       "shape miss: valid flag + |driver calls − N|", "= 0", lambda v: v == 0))
    e, g = point_at(rec, "eager", 120, 2.0), point_at(rec, "graph", 120, 2.0)
    speedup = e.wall_us / g.wall_us if (e and g) else float("nan")
    rows.append(_row("eager / graph at N=120, 2 µs (the seed's defaults)", round(speedup, 2), "≥ 4",
                     speedup >= 4))
    acc = accuracy(rec)
    rows.append(_row(f"calibrated model within ±{TOLERANCE:.0%} (share of points)", round(acc["share"], 3),
                     f"≥ {TARGET_SHARE:.0%}", acc["share"] >= TARGET_SHARE,
                     f"{acc['total'] - acc['within']} misses"))
    return rows


def table(rows: list[dict]) -> str:
    """The rows as an aligned text table: bound, your GPU's number, target, pass or fail."""
    w = max(len(r["bound"]) for r in rows)
    lines = [f"{'bound':<{w}}  {'value':>10}  {'target':<7}  result  worst at"]
    for r in rows:
        lines.append(f"{r['bound']:<{w}}  {'—' if r['value'] is None else r['value']:>10}  {r['target']:<7}  "
                     f"{'pass' if r['ok'] else 'FAIL':<6}  {r['worst_at']}")
    return "\n".join(lines)
