"""Draw a crowded timeline lane in slices, so that each kind's colour covers its true share of time.

A chart a few hundred pixels wide cannot draw hundreds of spans narrower than a pixel: the browser
snaps each bar to whole pixels, at least one wide, so a kernel of 2 µs every 19 µs reads as a lane
twice as busy as it is, and the kind drawn last covers the others (a blocking eager step at N=1000
once read as all waiting on the CPU and all kernel on the GPU). Nested spans make it worse: a
profiled launch sits inside its framework dispatch, and drawn side by side the two would count
their shared time twice.

So a crowded lane is cut into `slices` equal slices of the step, and each slice is given whole to
one kind, or left empty (idle), by error diffusion: every kind (idle too) carries the time it has
had so far and not yet been drawn, and each slice goes to the kind that carries most, which then
gives back a slice's width. Over the lane each colour then covers its share of the time to within
one slice, every bar is a slice wide or more (never a snapped sliver), and neighbouring slices of
one kind join into one bar. Time where spans nest goes to the innermost span (the one that started
last): a launch inside a dispatch is the launch's. Rare kinds (a graph launch, a capture, the final
synchronize) stay whole and are drawn as they are.
"""
from __future__ import annotations

import statistics
from collections import defaultdict

from .timeline_limit import _get, by_kind

BIN_SLICES = 150        # a crowded lane is drawn in this many slices of the step
BIN_MIN_SPANS = 60      # a lane is crowded with more spans of its frequent kinds than this ...
IDLE = None             # the state of a slice nothing used


def bin_lanes(spans: list, slices: int = BIN_SLICES, min_spans: int = BIN_MIN_SPANS, order: tuple = (),
              labels: dict | None = None) -> tuple[list, dict | None]:
    """`spans` with each crowded lane redrawn in slices (the module's docstring says how).

    A lane is crowded when its frequent kinds hold more than `min_spans` spans whose median is
    narrower than a slice. `order`: kinds in drawing order (ties go to the earlier one). `labels`:
    kind -> words for a slice's hover text. A drawn slice is a dict with lane, kind, name,
    start_us, end_us and "slice": True.

    Returns (spans, binned): `binned` is None when no lane was crowded, else
    {"slices": slices, "lanes": [...], "of": len(spans)}.
    """
    if not spans:
        return list(spans), None
    groups, rare_at_most = by_kind(spans)
    t0 = min(float(_get(s, "start_us")) for s in spans)
    t1 = max(float(_get(s, "end_us")) for s in spans)
    width = (t1 - t0) / slices if t1 > t0 else 0.0
    if width <= 0:
        return list(spans), None
    frequent = defaultdict(list)
    for (lane, kind), members in groups.items():
        if len(members) > rare_at_most:
            frequent[lane].extend(members)
    crowded = sorted(lane for lane, members in frequent.items() if len(members) > min_spans and statistics.median(
        float(_get(s, "end_us")) - float(_get(s, "start_us")) for s in members) < width)
    if not crowded:
        return list(spans), None
    rank = {k: i for i, k in enumerate(order)}
    out = []
    for lane in crowded:
        own = _own_time(frequent[lane], t0, width, slices)
        kinds = sorted(own, key=lambda k: (rank.get(k, len(rank)), k))
        out.extend(_diffuse(lane, kinds, own, t0, width, slices, labels or {}))
    out.extend(s for (lane, k), m in groups.items() if lane not in crowded or len(m) <= rare_at_most for s in m)
    out.sort(key=lambda s: _get(s, "start_us"))
    return out, {"slices": slices, "lanes": crowded, "of": len(spans)}


def _own_time(spans: list, t0: float, width: float, slices: int) -> dict:
    """{kind: [µs in each slice]}: each instant's time goes to the innermost span covering it (the
    latest started), so nested spans never count their shared time twice."""
    own = defaultdict(lambda: [0.0] * slices)
    cuts = sorted({float(_get(s, "start_us")) for s in spans} | {float(_get(s, "end_us")) for s in spans})
    by_start = sorted(spans, key=lambda s: float(_get(s, "start_us")))
    active, nxt = [], 0
    for a, b in zip(cuts, cuts[1:]):
        while nxt < len(by_start) and float(_get(by_start[nxt], "start_us")) <= a:
            active.append(by_start[nxt])
            nxt += 1
        active = [s for s in active if float(_get(s, "end_us")) > a]
        if not active:
            continue
        acc = own[_get(max(active, key=lambda s: float(_get(s, "start_us"))), "kind")]
        i = min(slices - 1, int((a - t0) / width))
        while a < b and i < slices:
            edge = t0 + (i + 1) * width
            acc[i] += min(b, edge) - a
            a, i = edge, i + 1
    return dict(own)


def _diffuse(lane, kinds: list, own: dict, t0: float, width: float, slices: int, labels: dict) -> list:
    """Each slice given whole to the kind (or IDLE) carrying the most undrawn time; runs of one kind
    joined into one bar whose name says how much of its span that kind really used."""
    carry = dict.fromkeys([*kinds, IDLE], 0.0)
    runs = []  # [kind, first slice, last slice]
    for i in range(slices):
        used = 0.0
        for k in kinds:
            carry[k] += own[k][i]
            used += own[k][i]
        carry[IDLE] += max(0.0, width - used)
        pick = max([*kinds, IDLE], key=lambda k: carry[k])  # ties: the earlier kind, idle last
        carry[pick] -= width
        if runs and runs[-1][0] == pick and runs[-1][2] == i - 1:
            runs[-1][2] = i
        else:
            runs.append([pick, i, i])
    drawn = []
    for kind, a, b in runs:
        if kind is IDLE:
            continue
        start, end = t0 + a * width, t0 + (b + 1) * width
        busy = {k: sum(own[k][a:b + 1]) for k in kinds}
        words = ", ".join(f"{labels.get(k, k)} {v:.1f} µs" for k, v in busy.items() if v > 0)
        drawn.append({"lane": lane, "kind": kind, "start_us": start, "end_us": end, "slice": True,
                      "name": f"{start:.0f}–{end:.0f} µs of the step, drawn as {labels.get(kind, kind)}; "
                              f"what ran in it: {words or 'nothing'}"})
    return drawn
