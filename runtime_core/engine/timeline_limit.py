"""Keep a printed or drawn timeline to a bounded number of spans.

A step of N kernels has about 2N spans (a launch on the CPU lane, a kernel on the GPU lane, and
a synchronize per kernel in eager mode): `measure --n 20000 --timeline` printed 5.8 MB of JSON.
Above MAX_SPANS the timeline is decimated: kinds that are rare (a graph launch, a capture, the
final synchronize) are all kept, so every event a student looks for is still there; the
frequent kinds (launches, kernels, per-kernel syncs) are thinned evenly over the step, so the
picture keeps its shape from the first span to the last. The caller says so in its output:
{"kept": K, "of": TOTAL}.
"""
from __future__ import annotations

import math
from collections import defaultdict

MAX_SPANS = 2000


def _get(s, name):
    return s[name] if isinstance(s, dict) else getattr(s, name)


def decimate(spans: list, limit: int = MAX_SPANS) -> tuple[list, dict | None]:
    """At most `limit` of `spans` (dicts or Span objects), in start order.

    Returns (kept, truncated): `truncated` is None when nothing was dropped, else
    {"kept": len(kept), "of": len(spans), "how": ...}.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if len(spans) <= limit:
        return list(spans), None
    groups = defaultdict(list)
    for s in spans:
        groups[(_get(s, "lane"), _get(s, "kind"))].append(s)
    rare_at_most = max(1, limit // (10 * max(1, len(groups))))  # a kind this small is kept whole
    kept, frequent = [], []
    for key, members in groups.items():
        if len(members) <= rare_at_most:
            kept.extend(members)
        else:
            frequent.append(members)
    budget = max(len(frequent), limit - len(kept) - len(frequent))  # each group also keeps its last
    total_frequent = sum(len(m) for m in frequent)
    for members in frequent:
        members = sorted(members, key=lambda s: _get(s, "start_us"))
        share = max(1, math.floor(budget * len(members) / total_frequent))
        stride = len(members) / share
        picks = {min(len(members) - 1, int(i * stride)) for i in range(share)}
        picks.add(len(members) - 1)  # the last span shows where the step ends
        kept.extend(members[i] for i in sorted(picks))
    kept.sort(key=lambda s: _get(s, "start_us"))
    if len(kept) > limit:  # a tiny limit with many kinds: thin what is left evenly
        kept = [kept[int(i * len(kept) / limit)] for i in range(limit)]
    return kept, {"kept": len(kept), "of": len(spans),
                  "how": "rare kinds kept whole, frequent kinds thinned evenly over the step"}


BIN_SLICES = 150        # a binned lane is drawn as this many slices of the step ...
BIN_WHEN_MORE_THAN = 400  # ... when it holds more spans of its frequent kinds than this
MIN_SHARE = 0.25        # a kind is drawn in a slice once its time (carried over) makes this share of one


def bin_lanes(spans: list, slices: int = BIN_SLICES, more_than: int = BIN_WHEN_MORE_THAN,
              order: tuple = ()) -> tuple[list, dict | None]:
    """`spans` with each crowded lane's frequent kinds summed into `slices` equal slices of the step.

    A chart a few hundred pixels wide cannot draw a thousand spans of a lane: each is narrower than
    a pixel, the browser paints each at least a pixel wide, and the kind drawn last covers the lane
    (a blocking eager step at N=1000 read as all waiting on the CPU and all kernel on the GPU). A
    lane with more than `more_than` spans of its frequent kinds is redrawn as slices instead: in each
    slice, each kind's time in it, laid side by side (an even slice's kinds in `order` against its
    end, an odd slice's reversed from its start, so the same kind meets across each boundary and
    neighbours join into wider bars), the rest of the slice left empty (idle). Areas stay true to time. Rare kinds (a graph launch, a capture, the final
    synchronize) are kept whole, as `decimate` keeps them. `order`: kinds in drawing order.

    Returns (spans, binned): `binned` is None when no lane was crowded, else
    {"slices": slices, "lanes": [...], "of": len(spans)}.
    """
    if not spans:
        return list(spans), None
    groups = defaultdict(list)
    for s in spans:
        groups[(_get(s, "lane"), _get(s, "kind"))].append(s)
    rare_at_most = max(1, MAX_SPANS // (10 * max(1, len(groups))))
    per_lane = defaultdict(int)
    for (lane, _), members in groups.items():
        if len(members) > rare_at_most:
            per_lane[lane] += len(members)
    crowded = sorted(lane for lane, n in per_lane.items() if n > more_than)
    if not crowded:
        return list(spans), None
    t0 = min(float(_get(s, "start_us")) for s in spans)
    t1 = max(float(_get(s, "end_us")) for s in spans)
    width = (t1 - t0) / slices if t1 > t0 else 0.0
    if width <= 0:
        return list(spans), None
    rank = {k: i for i, k in enumerate(order)}
    out = []
    for lane in crowded:
        kinds = sorted((k for (ln, k), m in groups.items() if ln == lane and len(m) > rare_at_most),
                       key=lambda k: (rank.get(k, len(rank)), k))
        time_in = {k: [0.0] * slices for k in kinds}
        for k in kinds:
            acc = time_in[k]
            for s in groups[(lane, k)]:
                a, b = float(_get(s, "start_us")) - t0, float(_get(s, "end_us")) - t0
                i = min(slices - 1, max(0, int(a / width)))
                while a < b and i < slices:
                    edge = (i + 1) * width
                    acc[i] += min(b, edge) - a
                    a, i = edge, i + 1
        carry = dict.fromkeys(kinds, 0.0)
        for i in range(slices):
            # a kind's time is carried until it makes at least MIN_SHARE of a slice (or the step
            # ends): a browser paints a sliver under a pixel a pixel wide, so a 1% kind drawn in
            # every slice would look like 30%; carried, it is drawn where it adds up, its area true
            last = i == slices - 1
            draw = {}
            for k in kinds:
                carry[k] += time_in[k][i]
                if carry[k] > 0 and (carry[k] >= MIN_SHARE * width or last):
                    draw[k] = carry[k]
            room, fit = width, {}
            for k in kinds:  # kinds that overlap (or carried time) never overflow the slice, but at the end
                d = draw.get(k, 0.0) if last else min(draw.get(k, 0.0), room)
                if d > 0:
                    fit[k], room, carry[k] = d, room - d, carry[k] - d
            present = [k for k in kinds if k in fit]
            if i % 2:
                present.reverse()
            total = sum(fit.values())
            at = t0 + i * width
            if i % 2 == 0 or last:  # laid to the slice's end, so its last kind meets the next slice's
                at += width - total  # first; the last slice's, carried time and all, ends with the step
            for k in present:
                out.append({"lane": lane, "kind": k, "start_us": at, "end_us": at + fit[k],
                            "name": f"{fit[k]:.1f} µs of {k}, summed over this {width:.1f} µs slice"
                                    + ("" if abs(fit[k] - time_in[k][i]) < 1e-9 else " and the slices before it")})
                at += fit[k]
    out.extend(s for (lane, k), m in groups.items()
               if lane not in crowded or len(m) <= rare_at_most for s in m)
    out.sort(key=lambda s: _get(s, "start_us"))
    return out, {"slices": slices, "lanes": crowded, "of": len(spans)}
