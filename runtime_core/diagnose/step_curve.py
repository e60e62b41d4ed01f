"""The bucket planner's cost model: step time and graph memory of one model against request size.

Built from a batch sweep (or the encoder's token sweep): at every measured size, the eager and
graph step times, the graph's capture time and the bytes its pool keeps. Between measured sizes
times are interpolated linearly (a step's time is close to linear in its batch between two
powers of two); pool bytes follow a straight line fitted to all the measured pools, because one
capture's pool is noisy (the allocator rounds to whole segments) while the trend is not.
"""
from __future__ import annotations

import bisect
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
        """Pool bytes of a capture at `size`: the least-squares line through the measured pools,
        never below the smallest measured pool."""
        n = len(self.sizes)
        mx, my = sum(self.sizes) / n, sum(self.pool_bytes) / n
        var = sum((x - mx) ** 2 for x in self.sizes)
        slope = sum((x - mx) * (y - my) for x, y in zip(self.sizes, self.pool_bytes)) / var if var else 0.0
        slope = max(slope, 0.0)
        return max(my + slope * (size - mx), min(self.pool_bytes))


def _interp(xs: tuple, ys: tuple, x: float) -> float:
    """Piecewise-linear y(x) through the points; flat below the first, the last slope above."""
    if x <= xs[0]:
        return ys[0]
    i = min(bisect.bisect_left(xs, x), len(xs) - 1)
    x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
