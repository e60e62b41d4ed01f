"""Which shapes to capture: the bucket set that minimises the expected cost of a request.

A server captures one graph per *bucket* size. A request of size s runs the graph of the
smallest bucket b ≥ s, its input padded from s to b (the padding is work done for nothing); a
request larger than every bucket runs eagerly. With the request-size distribution p(s) and a
StepCurve (step_curve.py), a bucket set B costs, per request,

    cost(B) = Σ_s p(s)·T(s, B)  +  Σ_b∈B capture_us(b) / R
    T(s, B) = graph_us(min{b ∈ B : b ≥ s})  or  eager_us(s) if no bucket is that large

where R is the number of requests a capture serves before it is thrown away, under a budget on
graph memory: Σ_b∈B pool_bytes(b) ≤ budget.

`plan()` solves this exactly by dynamic programming over the sorted candidate sizes. Buckets
can be restricted to the request sizes (lowering a bucket to the largest request it serves
never costs more time or memory), plus the sizes of the standard sets, so the plan is never
worse than powers of two or a serving engine's list under the same budget. The memory axis is
counted in whole units of budget/512 bytes (1 byte when the budget is at most 512), each bucket
rounded up: a plan never exceeds the budget.

    best[i][u] = cheapest way to serve sizes ≤ s_i with a bucket at s_i and u units of memory
               = min over the previous bucket i' < i (or none) of
                 best[i'][u − m_i] + graph_us(s_i)·(P_i − P_i') + capture_us(s_i)/R
    answer     = min(all eager, min_i,u best[i][u] + Σ_{j>i} p_j·eager_us(s_j))
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..words import count
from .step_curve import StepCurve

MAX_UNITS = 512
MAX_LIST_ENTRIES = 10_000
PRESETS = ("uniform", "zipf", "list")


@dataclass(frozen=True)
class Distribution:
    """Request sizes (distinct, ascending) and their probabilities."""

    sizes: tuple[int, ...]
    probs: tuple[float, ...]
    label: str


def uniform(max_size: int) -> Distribution:
    """Every size 1..max_size equally likely."""
    _check_max(max_size)
    return Distribution(tuple(range(1, max_size + 1)), (1.0 / max_size,) * max_size, f"uniform over 1..{max_size}")


def zipf(max_size: int, exponent: float = 1.1) -> Distribution:
    """p(s) ∝ s^−exponent over 1..max_size: mostly small requests, a long tail of big ones."""
    _check_max(max_size)
    if not (isinstance(exponent, (int, float)) and 0 <= exponent <= 4 and math.isfinite(exponent)):
        raise UsageError(f"the Zipf exponent must be between 0 and 4, got {exponent!r}")
    w = [s ** -exponent for s in range(1, max_size + 1)]
    total = sum(w)
    return Distribution(tuple(range(1, max_size + 1)), tuple(x / total for x in w),
                        f"Zipf (exponent {exponent:g}) over 1..{max_size}")


def from_list(text: str, max_size: int, measured_max: int | None = None) -> Distribution:
    """The sizes the user typed ("1, 3, 3, 8 17"): each entry one request; repeats weigh more.

    Raises UsageError (one line) for an empty list, a non-integer, a size out of 1..max_size,
    or more than 10 000 entries. `measured_max`: the largest size the recording measured, where
    `max_size` cannot go higher, so the message does not ask for what cannot be done.
    """
    tokens = [t for t in re.split(r"[\s,;]+", str(text).strip()) if t]
    if not tokens:
        raise UsageError("request sizes: type at least one whole number, e.g. 1, 2, 2, 8, 13")
    if len(tokens) > MAX_LIST_ENTRIES:
        raise UsageError(f"request sizes: at most {MAX_LIST_ENTRIES} entries, got {len(tokens)}")
    counts: dict[int, int] = {}
    # "1,000" is two entries here, 1 and 000: say so where a thousands comma may be what was meant
    grouped = re.search(r"\b[0-9]{1,3}(,[0-9]{3})+\b", str(text))
    hint = (f" (a comma separates sizes, so {_quoted(grouped.group(0))} is read as several: type "
            f"{grouped.group(0).replace(',', '')} for one size)") if grouped else ""
    for t in tokens:
        digits = t.lstrip("0")
        if not re.fullmatch(r"[0-9]+", t) or not digits:  # ASCII digits: \d takes "٥" too
            what = "is 0: a request size is 1 or more" if re.fullmatch(r"[0-9]+", t) else \
                "is not a whole number of 1 or more"
            raise UsageError(f"request sizes: {_quoted(t)} {what}{hint}")
        # compared by length first: Python refuses int() of a string of more than 4,300 digits
        if _above(digits, max_size):
            if measured_max is not None and _above(digits, measured_max):
                raise UsageError(f"request sizes: {_quoted(t)} is above {measured_max}, the largest size the "
                                 f"recording measured: no step time is known for it{hint}")
            up_to = (f" (to at most {measured_max}, the largest size the recording measured)"
                     if measured_max is not None else "")
            raise UsageError(f"request sizes: {_quoted(t)} is above the largest request size, {max_size}: "
                             f"raise that{up_to} to allow it{hint}")
        counts[int(digits)] = counts.get(int(digits), 0) + 1
    sizes = tuple(sorted(counts))
    return Distribution(sizes, tuple(counts[s] / len(tokens) for s in sizes), f"your {count(len(tokens), 'request')}")


def preset(name: str, max_size: int, exponent: float = 1.1, text: str = "",
           measured_max: int | None = None) -> Distribution:
    """A named preset: "uniform", "zipf" or "list" (the typed `text`; `measured_max` as from_list's)."""
    if name == "uniform":
        return uniform(max_size)
    if name == "zipf":
        return zipf(max_size, exponent)
    if name == "list":
        return from_list(text, max_size, measured_max)
    raise UsageError(f"request preset must be one of {', '.join(PRESETS)}, got {name!r}")


def _above(digits: str, limit: int) -> bool:
    """Whether the whole number written `digits` (no leading zeros) is above `limit`, compared by
    length first: Python refuses int() of a string of more than 4,300 digits."""
    return len(digits) > len(str(limit)) or int(digits) > limit


def _check_max(max_size) -> None:
    if isinstance(max_size, bool) or not isinstance(max_size, int) or not 1 <= max_size <= 100_000:
        raise UsageError(f"the largest request size must be a whole number from 1 to 100000, got {max_size!r}")


@dataclass(frozen=True)
class CostModel:
    """What a bucket set costs: the step curve, the memory budget and the capture amortisation.

    Args:
        curve: step and capture times and pool bytes against size.
        budget_bytes: graph memory allowed for all captures together (None: unlimited).
        requests_per_capture: R, requests a capture serves (its capture time is shared by them).
    """

    curve: StepCurve
    budget_bytes: float | None = None
    requests_per_capture: float = 100_000.0


def powers_of_two(max_size: int) -> tuple[int, ...]:
    """1, 2, 4, ... up to the first power of two ≥ max_size."""
    return tuple(2 ** i for i in range(math.ceil(math.log2(max(max_size, 1))) + 1))


def serving_default(max_size: int) -> tuple[int, ...]:
    """A serving engine's default capture sizes: 1, 2, 4, 8, then steps of 8, up to ≥ max_size."""
    top = max(8, 8 * math.ceil(max_size / 8))
    return (1, 2, 4) + tuple(range(8, top + 1, 8))


def fit_budget(buckets, cost: CostModel) -> tuple[int, ...]:
    """The smallest buckets, in order, while their pools fit the budget (what a server does when
    it runs out of graph memory: the largest sizes fall back to eager)."""
    kept, used = [], 0.0
    for b in sorted(set(buckets)):
        need = cost.curve.pool(b)
        if cost.budget_bytes is not None and used + need > cost.budget_bytes:
            break
        kept.append(b)
        used += need
    return tuple(kept)


def evaluate(buckets, dist: Distribution, cost: CostModel) -> dict:
    """Expected µs per request of a bucket set, its memory, captures and padded work."""
    bs = sorted(set(buckets))
    c = cost.curve
    step = pad = work = eager_share = 0.0
    for s, p in zip(dist.sizes, dist.probs):
        i = np.searchsorted(bs, s)
        if i < len(bs):
            step += p * c.graph(bs[i])
            pad += p * (bs[i] - s)
            work += p * bs[i]
        else:
            step += p * c.eager(s)
            work += p * s
            eager_share += p
    capture = sum(c.capture(b) for b in bs) / cost.requests_per_capture
    pool = sum(c.pool(b) for b in bs)
    return {"buckets": bs, "captures": len(bs), "expected_step_us": round(step, 3),
            "capture_us_per_request": round(capture, 4), "objective_us": round(step + capture, 3),
            "pool_bytes": int(pool), "feasible": cost.budget_bytes is None or pool <= cost.budget_bytes,
            "wasted_work_pct": round(100 * pad / work, 2) if work else 0.0,
            "eager_share_pct": round(100 * eager_share, 2)}


def plan(dist: Distribution, cost: CostModel) -> dict:
    """The cheapest bucket set for `dist` under `cost` (see the module docstring), evaluated."""
    cap = min(cost.curve.max_size, powers_of_two(max(dist.sizes))[-1])
    if max(dist.sizes) > cost.curve.max_size:
        raise UsageError(f"request sizes go up to {max(dist.sizes)}, but step times are known only up "
                         f"to {cost.curve.max_size}")
    extra = {b for b in (*powers_of_two(max(dist.sizes)), *serving_default(max(dist.sizes))) if b <= cap}
    prob = dict(zip(dist.sizes, dist.probs))
    sizes = sorted(set(dist.sizes) | extra)
    buckets = _solve(sizes, [prob.get(s, 0.0) for s in sizes], cost)
    best = evaluate(buckets, dist, cost)
    for other in (powers_of_two(max(dist.sizes)), serving_default(max(dist.sizes))):  # a safety net
        alt = evaluate(fit_budget(other, cost), dist, cost)  # for the memory axis' rounding
        if alt["objective_us"] < best["objective_us"]:
            best = alt
    return best


def _solve(sizes: list[int], probs: list[float], cost: CostModel) -> tuple[int, ...]:
    c, n = cost.curve, len(sizes)
    tg = np.array([c.graph(s) for s in sizes])
    te = np.array([c.eager(s) for s in sizes])
    cap = np.array([c.capture(s) for s in sizes]) / cost.requests_per_capture
    p = np.array(probs)
    P = np.cumsum(p)
    tail = np.concatenate([np.cumsum((p * te)[::-1])[::-1][1:], [0.0]])  # Σ_{j>i} p_j·eager_j
    if cost.budget_bytes is None:
        units, U = np.zeros(n, dtype=int), 0
    else:
        unit = max(1.0, cost.budget_bytes / MAX_UNITS)
        units = np.array([math.ceil(c.pool(s) / unit - 1e-9) for s in sizes])
        U = int(math.floor(cost.budget_bytes / unit + 1e-9))
    best = np.full((n, U + 1), np.inf)
    parent = np.full((n, U + 1), -2, dtype=int)
    for i in range(n):
        m = int(units[i])
        if m > U:
            continue
        best[i, m], parent[i, m] = tg[i] * P[i] + cap[i], -1
        if i and m <= U:
            cand = best[:i, : U + 1 - m] + (tg[i] * (P[i] - P[:i]) + cap[i])[:, None]
            k = np.argmin(cand, axis=0)
            v = cand[k, np.arange(cand.shape[1])]
            better = v < best[i, m:]
            best[i, m:][better], parent[i, m:][better] = v[better], k[better]
    total = best + tail[:, None]
    if not np.isfinite(total).any() or total.min() >= float(np.dot(p, te)):
        return ()
    i, u = np.unravel_index(np.argmin(total), total.shape)
    chosen = []
    while i >= 0:
        chosen.append(sizes[i])
        i, u = int(parent[i, u]), int(u - units[i])
    return tuple(sorted(chosen))


def compare(dist: Distribution, cost: CostModel) -> dict:
    """The planner's set beside powers of two, a serving engine's defaults and no graphs at all,
    each under the same budget."""
    top = max(dist.sizes)
    return {"planner": plan(dist, cost),
            "powers_of_two": evaluate(fit_budget(powers_of_two(top), cost), dist, cost),
            "serving_default": evaluate(fit_budget(serving_default(top), cost), dist, cost),
            "all_eager": evaluate((), dist, cost)}


def default_budget_bytes(curve: StepCurve, max_size: int) -> float:
    """The page's and the recording's default graph-memory budget: half of what one graph per
    power of two up to `max_size` would keep, so that the budget binds and choices matter; never
    less than the one graph that serves every request (the bucket of `max_size`): below that, at
    small sizes, no graph at all would fit and the planner would have nothing to choose."""
    return max(0.5 * sum(curve.pool(b) for b in powers_of_two(max_size)), float(curve.pool(max_size)))


def _quoted(token: str, most: int = 20) -> str:
    """A typed entry for an error line: quoted, cut to `most` characters with an ellipsis and the
    entry's full length when it is longer (the box keeps the whole entry)."""
    return repr(token) if len(token) <= most else f"'{token[:most]}…' ({len(token):,} characters)"
