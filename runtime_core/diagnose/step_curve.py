"""The bucket planner's cost model: step time and graph memory of one model against request size.

Built from a batch sweep (or the encoder's token sweep): at every measured size, the eager and
graph step times, the graph's capture time and the bytes its pool keeps. Between measured sizes
times are interpolated linearly (a step's time is close to linear in its batch between two
powers of two). Pool bytes are counted high, so that a plan under a memory budget stays under it
when it is measured: the allocator rounds a pool up to whole segments, so a pool jumps between
two measured sizes (the encoder's went from 4 MB at batch 4 to 24 MB at batch 8 on the H200), and
a size between them is priced at the larger one.
"""
from __future__ import annotations

import bisect
import itertools
import json
from dataclasses import dataclass

from ..errors import UsageError


@dataclass(frozen=True)
class StepCurve:
    """Per size: eager and graph µs per step, capture µs, pool bytes (measured at `sizes`).

    Args:
        sizes: the measured sizes, ascending (batch sizes, or tokens).
        eager_us, graph_us: step times measured at those sizes.
        capture_us: time to warm up and capture one graph at each size.
        pool_bytes: bytes each capture kept.
        kind: "batch" or "tokens": what a size counts.
    """

    sizes: tuple[int, ...]
    eager_us: tuple[float, ...]
    graph_us: tuple[float, ...]
    capture_us: tuple[float, ...]
    pool_bytes: tuple[float, ...]
    kind: str = "batch"

    @classmethod
    def from_points(cls, points: list[dict], kind: str = "batch") -> "StepCurve":
        """From diagnose points of one model and dtype (batch kind: one seq; tokens: batch 1)."""
        key = "batch" if kind == "batch" else "seq"
        pts = sorted({p[key]: p for p in points}.values(), key=lambda p: p[key])
        if len(pts) < 2:
            raise UsageError(f"the planner needs step times at two or more {kind} sizes; "
                             f"this recording has {len(pts)}")
        for p in pts:  # a step that could not be captured has no graph time, capture time or pool
            for field in ("eager_us", "graph_us", "graph_capture_s", "graph_pool_bytes"):
                value = p.get(field)
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    said = f"{field} {json.dumps(value)}" if field in p else f"no {field}"
                    raise UsageError(f"the planner needs a captured graph at every {kind} size, but "
                                     f"{p.get('model', 'the model')} at {kind} {p[key]} has {said}"
                                     f"{' (its capture failed)' if p.get('capturable') is False else ''}")
        return cls(tuple(p[key] for p in pts), tuple(p["eager_us"] for p in pts), tuple(p["graph_us"] for p in pts),
                   tuple(1e6 * p["graph_capture_s"] for p in pts), tuple(float(p["graph_pool_bytes"]) for p in pts),
                   kind)

    @property
    def max_size(self) -> int:
        return self.sizes[-1]

    def eager(self, size: float) -> float:
        return _interp(self.sizes, self.eager_us, size)

    def graph(self, size: float) -> float:
        return _interp(self.sizes, self.graph_us, size)

    def capture(self, size: float) -> float:
        return _interp(self.sizes, self.capture_us, size)

    def pool(self, size: float) -> float:
        """Pool bytes of a capture at `size`, counted high: the pool of the nearest measured size
        at or above it, after a running maximum (a pool never shrinks as the size grows, so one
        capture that came out small does not price its neighbours low); past the largest measured
        size, the last step's slope carries on."""
        env = list(itertools.accumulate(self.pool_bytes, max))
        if size > self.sizes[-1]:
            if len(self.sizes) < 2:
                return env[-1]
            slope = (env[-1] - env[-2]) / (self.sizes[-1] - self.sizes[-2])
            return env[-1] + slope * (size - self.sizes[-1])
        return env[bisect.bisect_left(self.sizes, size)]


def _interp(xs: tuple, ys: tuple, x: float) -> float:
    """Piecewise-linear y(x) through the points; flat below the first, the last slope above."""
    if x <= xs[0]:
        return ys[0]
    i = min(bisect.bisect_left(xs, x), len(xs) - 1)
    x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
