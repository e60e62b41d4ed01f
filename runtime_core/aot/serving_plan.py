"""Serving with AOT packages: one ranged package, a few exact-shape ones, and the guard per request.

One .pt2 exported with a dynamic batch (export.BATCH_MIN..BATCH_MAX) serves every batch in its
range as it is; the serving loop pads or rejects only outside it. The plan:

    ranged        the MLP with batch 2..64, checked first: a request inside runs as it is
    loop_exact    exact-shape packages beyond the range that the loop may pad up to (128)
    compare_exact exact-shape packages at sizes inside the range, timed beside the ranged one
                  (they are not in the loop: the point is what one ranged package costs)
    requests      batch sizes served: below the range (1 pads to 2), inside, above (100 pads to
                  128) and past every package (200 is rejected with the guard's message)

`serve_requests` runs the plan over package callables: in the serving child process for real
(serving_run.py), with stand-ins in the tests. Times are median milliseconds of one call, timed in turns
(interleaved_ms); which call each time is, serve_requests says.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from typing import Callable

from .export import BATCH_MAX, BATCH_MIN
from .models import MLP_IN
from .serving import Artifact, Guard, RequestRejected, ServingLoop

RANGED = None  # the key of the ranged package among a plan's packages (exact ones are keyed by batch)


@dataclass(frozen=True)
class ServingPlan:
    """Which packages to build and which requests to serve (see the module docstring).

    Args:
        loop_exact: exact-shape packages the loop pads up to, beyond the ranged package.
        compare_exact: exact-shape packages timed beside the ranged one at their own size.
        requests: the request batch sizes served, in order.
        repeats: calls timed per measured cell (the median is kept).
        cpp_batch: a size inside the range that the C++ runner serves from the ranged package.
        unchecked: (exact package, request batch): that package run at another batch with
            AOTInductor's own input check off, to show what an unguarded dispatch does.
    """

    loop_exact: tuple[int, ...] = (128,)
    compare_exact: tuple[int, ...] = (8, 64)
    requests: tuple[int, ...] = (1, 8, 37, 64, 100, 128, 200)
    repeats: int = 50
    cpp_batch: int = 37
    unchecked: tuple[int, int] | None = (8, 12)

    def packages(self) -> list[int | None]:
        """Every package the plan needs: RANGED first, then the exact batches in order."""
        exact = set(self.loop_exact) | set(self.compare_exact) | ({self.unchecked[0]} if self.unchecked else set())
        return [RANGED, *sorted(exact)]

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ServingPlan":
        fields = {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**fields)


SERVING_PLAN = ServingPlan()


def ranged_guard(device: str = "cpu") -> Guard:
    """The guard of the ranged package: the batch range it was exported (and checks) for."""
    return Guard(BATCH_MIN, BATCH_MAX, (MLP_IN,), "torch.float32", device)


def ranged_name() -> str:
    return f"ranged package, batch {BATCH_MIN}..{BATCH_MAX}"


def loop_artifacts(plan: ServingPlan, fns: dict, device: str = "cpu") -> list[Artifact]:
    """The loop's artifacts, checked in order: the ranged package, then the exact-shape packages
    it may pad up to. `fns` maps RANGED and each batch of plan.loop_exact to a callable."""
    arts = [Artifact(ranged_name(), ranged_guard(device), fns[RANGED])]
    for b in sorted(plan.loop_exact):
        arts.append(Artifact(f"exact package, batch {b}", Guard(b, b, (MLP_IN,), "torch.float32", device), fns[b]))
    return arts


def median_ms(fn: Callable, repeats: int, sync: Callable = lambda: None) -> float:
    """Median wall milliseconds of `fn()` over `repeats` calls (after one untimed call), each
    followed by `sync()` so a GPU's work is inside the clock."""
    return interleaved_ms({"x": fn}, repeats, sync)["x"]


def interleaved_ms(fns: dict, repeats: int, sync: Callable = lambda: None) -> dict:
    """{name: median wall ms of one call} for every callable in `fns`, timed in turns: each
    repeat calls every callable once, one after the other (after one untimed call of each).

    In turns, not one after the other: on a machine shared with other work, a burst of someone
    else's load that lands on one callable's 50 calls lands on every callable's, so two cells of
    one row are never timed under different conditions."""
    for fn in fns.values():
        fn()
        sync()
    samples = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            sync()
            samples[name].append((time.perf_counter() - t0) * 1e3)
    return {name: statistics.median(v) for name, v in samples.items()}


def verdict_of(response) -> str:
    """The loop's verdict for one served request, in words."""
    if response.path == "hit":
        return f"hit: runs as it is on the {response.artifact}"
    return f"miss ({response.miss_reason}): padded {response.padded_from} up to the {response.artifact}"


def serve_requests(plan: ServingPlan, fns: dict, make_input: Callable, reference: Callable,
                   device: str = "cpu", sync: Callable = lambda: None, package_check: Callable | None = None,
                   close: Callable = None) -> list[dict]:
    """Serve every request of `plan` through the loop (pad, else reject) and time what ran.

    Args:
        fns: RANGED and every batch of plan.packages() -> a callable on one input tensor.
        make_input: batch -> the request tensor; reference: x -> the expected output.
        package_check: optional x -> None or the package's own error line: the ranged package
            called directly, with its runtime input check on.
        close: (got, want) -> bool, how close an output must be (default torch.allclose).
    Returns one row per request: batch, path ("hit", "miss -> pad", "rejected"), verdict,
    served_by, padded_to, matches_reference, package_check, and its times, each the median ms
    of plan.repeats calls timed in turns (interleaved_ms), None where it does not apply:
        served_ms   the loop, per request: guard check, pad, the package call, drop the padding
        guard_ms    the loop's guard check alone (finding the artifact; nothing runs)
        ranged_ms   one call of the ranged package on this request, where its range covers it
        exact_ms    one call of the exact-shape package for this size, where the plan has one
        padded_ms   one call of the package a padded request ran on, at the padded size
    """
    import torch
    close = close or (lambda got, want: bool(torch.allclose(got, want, rtol=1e-4, atol=1e-5)))
    loop = ServingLoop(loop_artifacts(plan, fns, device), "pad")
    rows = []
    for b in plan.requests:
        x = make_input(b)
        row = {"batch": b, "served_ms": None, "guard_ms": None, "ranged_ms": None, "exact_ms": None,
               "padded_ms": None, "padded_to": None, "served_by": None, "matches_reference": None,
               "package_check": package_check(x) if package_check else None}
        timed = {}
        try:
            r = loop.serve(x)
        except RequestRejected as e:
            row.update(path="rejected", verdict=f"rejected: {e}")
        else:
            row.update(path=r.path, verdict=verdict_of(r), served_by=r.artifact,
                       padded_to=None if r.padded_from is None else _padded_size(loop, r),
                       matches_reference=close(_first(r.output), reference(x)))
            timed["served_ms"] = lambda x=x: loop.serve(x)
            timed["guard_ms"] = lambda x=x: loop.lookup(x)
            if row["padded_to"] is not None:
                art = next(a for a in loop.artifacts if a.name == r.artifact)
                xp = make_input(row["padded_to"])
                timed["padded_ms"] = lambda art=art, xp=xp: art.fn(xp)
        if BATCH_MIN <= b <= BATCH_MAX:
            timed["ranged_ms"] = lambda x=x: fns[RANGED](x)
        if b in plan.compare_exact or b in plan.loop_exact:
            timed["exact_ms"] = lambda x=x, b=b: fns[b](x)
        if timed:
            row.update(interleaved_ms(timed, plan.repeats, sync))
        rows.append(row)
    return rows


def _padded_size(loop: ServingLoop, r) -> int:
    art = next(a for a in loop.artifacts if a.name == r.artifact)
    return max(r.padded_from, art.guard.batch_min)


def _first(out):
    """A package returns its output, or a list of outputs: the first one."""
    return out[0] if isinstance(out, (list, tuple)) else out
