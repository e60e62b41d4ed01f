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


def by_kind(spans: list, limit: int = MAX_SPANS) -> tuple[dict, int]:
    """({(lane, kind): its spans}, the most spans a kind may hold and still count as rare): a rare
    kind (a graph launch, a capture, the final synchronize) is kept whole when a timeline is
    thinned (decimate) or drawn in slices (timeline_slices)."""
    groups = defaultdict(list)
    for s in spans:
        groups[(_get(s, "lane"), _get(s, "kind"))].append(s)
    return groups, max(1, limit // (10 * max(1, len(groups))))


def decimate(spans: list, limit: int = MAX_SPANS) -> tuple[list, dict | None]:
    """At most `limit` of `spans` (dicts or Span objects), in start order.

    Returns (kept, truncated): `truncated` is None when nothing was dropped, else
    {"kept": len(kept), "of": len(spans), "how": ...}.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if len(spans) <= limit:
        return list(spans), None
    groups, rare_at_most = by_kind(spans, limit)
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

