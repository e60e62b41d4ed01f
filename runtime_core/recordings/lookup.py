"""Finding a point in a sweep recording: the nearest recorded setting, and its timeline.

Points are keyed by the *requested* knobs (mode, n, work_us, extra_tax_us, dynamic, policy).
"""
from __future__ import annotations

import math

from ..knobs import Knobs, Policy
from .types import Point, Recording


def nearest_point(rec: Recording, k: Knobs) -> Point | None:
    """The recorded point closest to `k`: same mode, dynamic and policy, nearest N, work and extra tax.

    Distance is on a log scale (N 120 vs 300 is as far as 300 vs 750), so a student at N=150
    is shown N=120, not N=300; the tax too, as the whole host time per launch (the GPU's own
    tax plus the added work), so a tax of 20 µs is shown 15.6 µs, not 29.5 µs. Returns None when
    no point has that mode and policy.
    """
    policy = k.effective_policy
    graph_input = k.graph_input if k.mode == "graph" and not k.dynamic else "copy"
    same = [p for p in rec.points if p.launcher == "python"
            and (p.mode, p.dynamic, p.policy, p.graph_input) == (k.mode, k.dynamic, policy, graph_input)]
    if not same:
        return None

    own = rec.meta.intrinsic_tax_us or 0.0  # the tax is judged whole, as the student sets it

    def dist(p: Point) -> float:
        return (abs(math.log((p.n + 1) / (k.n + 1)))
                + abs(math.log((p.work_us + 1) / (k.work_us + 1)))
                + abs(math.log((own + p.extra_tax_us + 1) / (own + k.extra_tax_us + 1))))
    return min(same, key=dist)


def is_exact(p: Point, k: Knobs) -> bool:
    """True when `p` was recorded at exactly the knobs of `k` (N, work and extra tax)."""
    return (p.n, p.work_us, p.extra_tax_us) == (k.n, float(k.work_us), float(k.extra_tax_us))


def timeline_key(mode: str, n: int, work_us: float, dynamic: bool) -> str:
    return f"{mode}|n={n}|work={work_us:g}|dynamic={int(bool(dynamic))}"


def timeline_for(rec: Recording, p: Point) -> list[dict]:
    """The recorded spans of exactly this point's setting, or [] (timelines exist for the
    fallback policy, a graph's input copied, and the settings the sweep chose to trace: a
    zero-copy replay has no copy, so the copying one's spans are not its timeline)."""
    if p.policy != Policy.FALLBACK or (p.mode == "graph" and p.graph_input != "copy"):
        return []
    return rec.timelines.get(timeline_key(p.mode, p.n, p.work_us, p.dynamic), [])


def traced_settings(rec: Recording) -> str:
    """The settings the recording has timelines for, in words: "eager, streams and graph at N=120,
    work 2 or 40 µs; with dynamic shapes, graph at N=120, work 2 µs"."""
    groups: dict[tuple, tuple[list, list]] = {}
    for key in rec.timelines:
        parts = [part.split("=")[-1] for part in str(key).split("|")]
        if len(parts) != 4 or not all(x.replace(".", "", 1).isdigit() for x in parts[1:]):
            continue  # not a key timeline_key writes: nothing to name
        mode, n, work, dyn = parts
        modes, works = groups.setdefault((dyn == "1", int(n)), ([], []))
        if mode not in modes:
            modes.append(mode)
        if work not in works:
            works.append(work)

    def words(xs: list[str], last: str) -> str:
        return xs[0] if len(xs) == 1 else f"{', '.join(xs[:-1])} {last} {xs[-1]}"
    order = ["eager", "streams", "graph"]
    parts = [("with dynamic shapes, " if dyn else "")
             + f"{words(sorted(modes, key=lambda m: order.index(m) if m in order else 9), 'and')} at N={n}, "
             + f"work {words(sorted(works, key=float), 'or')} µs"
             for (dyn, n), (modes, works) in sorted(groups.items())]
    return "; ".join(parts) or "none"


def point_at(rec: Recording, mode: str, n: int, work_us: float, extra_tax_us: float = 0.0,
             dynamic: bool = False, policy: str = "fallback", graph_input: str = "copy",
             launcher: str = "python") -> Point | None:
    """The point recorded at exactly these knobs, or None."""
    want = (mode, n, float(work_us), float(extra_tax_us), dynamic, policy, graph_input, launcher)
    for p in rec.points:
        if (p.mode, p.n, p.work_us, p.extra_tax_us, p.dynamic, p.policy, p.graph_input, p.launcher) == want:
            return p
    return None
