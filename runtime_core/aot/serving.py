"""The serving loop: check the guards, then dispatch; on a miss, recompile, pad or reject.

An *artifact* is something compiled for a set of inputs (an AOT package, a captured graph, a
JIT-compiled function) together with the *guard* that says which inputs it is valid for. The
loop is mechanical:

    for each request x:
        artifact = first artifact whose guard accepts x       -> hit: dispatch to it
        no artifact accepts x                                  -> miss: apply the miss policy
            recompile  compile a new artifact for exactly this shape (a JIT runtime can; slow)
            pad        pad the batch up to the smallest bucket that fits, run, drop the padding
            reject     refuse with a clear error (a static AOT engine cannot compile)

Artifacts are plain callables, so the loop runs (and is tested) without compiling anything.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

MISS_POLICIES = ("recompile", "pad", "reject")


class RequestRejected(ValueError):
    """A request no artifact can serve, under the reject policy (or one padding can't fix)."""


@dataclass(frozen=True)
class Guard:
    """What an artifact was compiled for: a batch range, the other dims, dtype and device."""

    batch_min: int
    batch_max: int
    feature_shape: tuple
    dtype: str = "torch.float32"
    device: str = "cpu"

    def miss_reason(self, x) -> str | None:
        """None if x passes the guard, else why it does not (one short phrase)."""
        if tuple(x.shape[1:]) != tuple(self.feature_shape):
            return f"feature shape {tuple(x.shape[1:])} != {tuple(self.feature_shape)}"
        if str(x.dtype) != self.dtype:
            return f"dtype {x.dtype} != {self.dtype}"
        if x.device.type != self.device:
            return f"device {x.device.type} != {self.device}"
        if not self.batch_min <= x.shape[0] <= self.batch_max:
            return f"batch {x.shape[0]} outside {self.describe_batch()}"
        return None

    def describe_batch(self) -> str:
        lo, hi = self.batch_min, self.batch_max
        return f"batch {lo}" if lo == hi else f"batch {lo}..{hi}"


@dataclass
class Artifact:
    """A compiled callable and the guard it is valid under."""

    name: str
    guard: Guard
    fn: Callable
    kind: str = "aot"          # "aot", "graph", or "jit" (made by a recompile)


@dataclass
class ServingCounters:
    """What the loop did so far: a student reads these on the page."""

    requests: int = 0
    hits: int = 0
    misses: int = 0
    recompiles: int = 0
    recompile_s: float = 0.0
    pads: int = 0
    padded_rows: int = 0
    rejects: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Response:
    """One served request: the output and how it was served."""

    output: object
    path: str                  # "hit", "miss -> recompile", "miss -> pad"
    artifact: str
    miss_reason: str | None = None
    padded_from: int | None = None


@dataclass
class ServingLoop:
    """Guard check, then dispatch, with one miss policy chosen by the caller.

    Args:
        artifacts: the artifacts, checked in order (put exact-shape ones before ranges).
        miss_policy: "recompile", "pad" or "reject".
        compile_fn: for "recompile": callable(example_x) -> fn, compiling for x's exact shape.
    """

    artifacts: list
    miss_policy: str = "reject"
    compile_fn: Callable | None = None
    counters: ServingCounters = field(default_factory=ServingCounters)

    def __post_init__(self):
        self.set_policy(self.miss_policy)

    def set_policy(self, policy: str) -> None:
        if policy not in MISS_POLICIES:
            raise ValueError(f"miss policy must be one of {', '.join(MISS_POLICIES)}, got {policy!r}")
        if policy == "recompile" and self.compile_fn is None:
            raise ValueError("the recompile policy needs a compile_fn (a static AOT engine has none)")
        self.miss_policy = policy

    def lookup(self, x) -> Artifact | None:
        """The first artifact whose guard accepts x."""
        return next((a for a in self.artifacts if a.guard.miss_reason(x) is None), None)

    def serve(self, x) -> Response:
        """Serve one request. Raises RequestRejected when the request cannot be served."""
        self.counters.requests += 1
        art = self.lookup(x)
        if art is not None:
            self.counters.hits += 1
            return Response(art.fn(x), "hit", art.name)
        self.counters.misses += 1
        reason = self._closest_reason(x)
        if self.miss_policy == "recompile":
            return self._recompile(x, reason)
        if self.miss_policy == "pad":
            return self._pad(x, reason)
        self.counters.rejects += 1
        raise RequestRejected(f"guard miss: {reason}. This engine serves {self.supported()} and "
                              "cannot recompile; send a supported shape or pad to a bucket.")

    def supported(self) -> str:
        """The inputs this engine accepts, in words."""
        if not self.artifacts:
            return "nothing yet"
        g = self.artifacts[0].guard
        batches = ", ".join(a.guard.describe_batch() for a in self.artifacts)
        return f"{batches}, each with features {tuple(g.feature_shape)}, {g.dtype}, on {g.device}"

    def _closest_reason(self, x) -> str:
        """Why no artifact took x. When only the batch kept every artifact out, the batch against
        every artifact's range, smallest first ("batch 100 outside batch 2..64, batch 200"), not the first
        artifact's alone, which named a just-compiled batch-200 one as if it were the only one."""
        reasons = [a.guard.miss_reason(x) for a in self.artifacts]
        batch_only = [r for r in reasons if r and r.startswith("batch")]
        by_size = sorted(self.artifacts, key=lambda a: (a.guard.batch_min, a.guard.batch_max))
        ranges = list(dict.fromkeys(a.guard.describe_batch() for a in by_size))  # once each, smallest first
        if batch_only and len(batch_only) == len(reasons) and len(ranges) > 1:
            shown = ranges if len(ranges) <= 6 else ranges[:5] + [f"… {len(ranges) - 5} more"]
            return f"batch {x.shape[0]} outside " + ", ".join(shown)
        return (batch_only or reasons or ["no artifacts loaded"])[0]

    def _recompile(self, x, reason: str) -> Response:
        t0 = time.perf_counter()
        fn = self.compile_fn(x)
        self.counters.recompile_s += time.perf_counter() - t0
        self.counters.recompiles += 1
        b = x.shape[0]
        g = Guard(b, b, tuple(x.shape[1:]), str(x.dtype), x.device.type)
        art = Artifact(f"jit batch {b}", g, fn, kind="jit")
        self.artifacts.insert(0, art)  # exact-shape artifacts are checked first
        return Response(fn(x), "miss -> recompile", art.name, miss_reason=reason)

    def _pad(self, x, reason: str) -> Response:
        import torch
        b = x.shape[0]
        fits = [a for a in self.artifacts if a.guard.batch_max >= b
                and a.guard.miss_reason(_like(x, max(b, a.guard.batch_min))) is None]
        if not fits:
            self.counters.rejects += 1
            why = (f"batch {b} is larger than every package" if all(a.guard.batch_max < b for a in self.artifacts)
                   else "no package takes this input, padded or not")
            raise RequestRejected(f"guard miss: {reason}, and padding cannot fix it: {why}. It serves {self.supported()}.")
        art = min(fits, key=lambda a: max(b, a.guard.batch_min))
        target = max(b, art.guard.batch_min)
        pad = x.new_zeros((target - b,) + tuple(x.shape[1:]))
        self.counters.pads += 1
        self.counters.padded_rows += target - b
        out = art.fn(torch.cat([x, pad]))[:b]  # the padded rows were wasted work: drop them
        return Response(out, "miss -> pad", art.name, miss_reason=reason, padded_from=b)


def _like(x, batch: int):
    """A zero-cost stand-in with x's dtype/device and another batch (for guard checks only)."""
    return x.new_empty((batch,) + tuple(x.shape[1:]))


def bucket_artifacts(fn: Callable, buckets, feature_shape, dtype: str = "torch.float32",
                     device: str = "cpu", kind: str = "aot") -> list:
    """One exact-batch artifact per bucket, all served by `fn` (e.g. packages or graphs per size)."""
    return [Artifact(f"{kind} batch {b}", Guard(b, b, tuple(feature_shape), dtype, device), fn, kind)
            for b in sorted(buckets)]


def jit_compile_fn(model, backend: str = "eager") -> Callable:
    """A compile_fn for the recompile policy: torch.compile specialised to the request's shape.

    backend "eager" runs Dynamo's capture and guards but no Inductor codegen, so a recompile takes
    about a second instead of tens of seconds; "inductor" is the full (slow) JIT.
    """
    import torch

    def compile_for(x):
        fn = torch.compile(model, backend=backend, dynamic=False)
        with torch.no_grad():
            fn(x)  # compile now, so the recompile cost is counted here, not on the dispatch
        return fn
    return compile_for
