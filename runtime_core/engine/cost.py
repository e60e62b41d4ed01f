"""What a measurement will cost before it runs, and a one-line refusal when that is too much.

A request (a CLI call, a page's button) must finish in about a minute. The knobs allow far more:
`measure --backend sim --mode eager --n 20000 --work-us 10000` ran for 688 s (before the simulator
ran a chain's kernels in bulk; about a second now, and priced so: sim/cost.py). So every entry
point prices its request first and refuses with a UsageError (exit 2, one line) that says the
estimate and how far to lower each knob.

The estimate follows measure()'s recipe step by step (warm-up and capture, the timed repeats,
the traced step and its own warm-up and capture) and prices each step:

    SimCostModel   Python seconds: SimDevice simulates every launch, node and synchronize in
                   Python and runs each kernel's effect on a numpy buffer of work_us ×
                   elems_per_us elements.
    CudaCostModel  device seconds: N × (launch tax + sync + work) for blocking eager, N × (tax +
                   work) for streams, N × (work + node gap) for a replay; traced steps pay the
                   profiler.
Each backend has its own model (sim/cost.py, cuda/cost.py), found by the device's backend
(cost_model(dev)), so nothing here asks which it is.

SIM_COSTS (sim/cost.py) were measured on the 2-core development machine (SimDevice API calls
timed in bulk, best of 5; `calibrate_sim()` measures them again on another host); CUDA_COSTS
(cuda/cost.py) are the H200 recordings' costs rounded up. The total is multiplied by SAFETY, so
the estimate is conservative: it may refuse a request that would have just fit, never admit one
that runs for minutes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import UsageError
from ..knobs import Backend, Knobs, Mode, Policy
from .cuda.cost import CUDA_COSTS, CudaCostModel
from .measure import default_repeats
from .sim.cost import SimCostModel

MAX_WALL_S = 60.0   # a request that would take longer is refused
SAFETY = 2.0        # estimate = SAFETY × the step-by-step sum

CLI_NAMES = {"n": "--n", "work_us": "--work-us", "extra_tax_us": "--extra-tax-us"}
PAGE_NAMES = {"n": "N (kernels in the chain)", "work_us": "the per-kernel work",
              "extra_tax_us": "the extra tax"}
API_NAMES = {"n": "n", "work_us": "work_us", "extra_tax_us": "extra_tax_us"}


@dataclass
class Estimate:
    """Estimated wall seconds of one request, and where they go (seconds before SAFETY)."""

    seconds: float
    parts: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"estimate_s": round(self.seconds, 3), "parts_s": {k: round(v, 3) for k, v in self.parts.items()}}


def cost_model(dev):
    """What a measurement costs on `dev`, to price a request before it runs: Python seconds on
    the simulator (SimCostModel), device seconds on a GPU (CudaCostModel)."""
    return _BY_BACKEND[dev.backend](dev)


_BY_BACKEND = {Backend.SIM: lambda dev: SimCostModel(dev.params.elems_per_us, queue_depth=dev.params.queue_depth),
               Backend.CUDA: lambda dev: CudaCostModel()}


def _cuda_step_s(kind: str, n: int, work_us: float, extra_us: float) -> float:
    return CudaCostModel().step_s(kind, n, work_us, extra_us)


# ---- measure(): its recipe, step by step -------------------------------------------------
def measure_steps(k: Knobs, repeats: int) -> dict[str, list[tuple[str, int, float]]]:
    """The steps measure() runs for `k`, grouped: {"setup": [...], "timed": [...], "trace": [...]},
    each a list of (step kind, count, work scale). `work scale` is 2 for the bucket policy
    (inputs padded up to at most twice their size), else 1."""
    if k.mode == Mode.EAGER or k.mode == Mode.STREAMS:
        kind = k.mode.value
        return {"setup": [(kind, 1, 1.0)], "timed": [(kind, repeats, 1.0)], "trace": [(kind, 4, 1.0)]}
    policy = k.effective_policy
    if policy == Policy.BUCKET:  # two buckets at most (the base size and the dynamic sizes)
        return {"setup": [("capture", 2, 2.0), ("replay", 1, 2.0)], "timed": [("replay", repeats, 2.0)],
                "trace": [("capture", 2, 2.0), ("replay", 4, 2.0)]}
    if policy == Policy.RECAPTURE:  # a new shape every call: capture, then replay
        return {"setup": [("capture", 1, 1.0), ("replay", 1, 1.0)],
                "timed": [("capture", repeats, 1.0), ("replay", repeats, 1.0)],
                "trace": [("capture", 4, 1.0), ("replay", 4, 1.0)]}
    if k.missed_shape:  # fallback: the guard misses, every dynamic call runs through the graph
        # executor's own StreamsExecutor (asynchronous launches, priced as streams: charged as eager it
        # came out 1.7x under the run once a blocking run's effects were priced in bulk)
        return {"setup": [("capture", 1, 1.0), ("replay", 1, 1.0)], "timed": [("streams", repeats, 1.0)],
                "trace": [("capture", 1, 1.0), ("replay", 1, 1.0), ("streams", 3, 1.0)]}
    return {"setup": [("capture", 1, 1.0), ("replay", 1, 1.0)], "timed": [("replay", repeats, 1.0)],
            "trace": [("capture", 1, 1.0), ("replay", 4, 1.0)]}


def estimate_measure(k: Knobs, model, repeats: int | None = None, trace: bool = True) -> Estimate:
    """Estimated wall seconds of `measure(dev, k, repeats, trace)` under `model` (the device's
    cost_model(dev): SimCostModel or CudaCostModel). Checks `k` against the measure bounds first."""
    k = k.validate("measure")
    reps = repeats or default_repeats(model, k.n, k.work_us)  # reads model.deterministic, as from a device
    groups = measure_steps(k, reps)
    if not trace:
        groups.pop("trace")
    parts = {}
    for name, steps in groups.items():
        factor = getattr(model, "profiler_factor", 1.0) if name == "trace" else 1.0
        parts[name] = factor * sum(count * model.step_s(kind, k.n, k.work_us, k.extra_tax_us, scale)
                                   for kind, count, scale in steps)
    parts.update(model.fixed_parts(k, 1 + reps + (4 if trace else 0)))
    return Estimate(SAFETY * sum(parts.values()), parts)


def check_measure(k: Knobs, model, repeats: int | None = None, trace: bool = True,
                  limit_s: float | None = None, names: dict = CLI_NAMES, what: str = "measure",
                  device_name: str = "") -> Estimate:
    """Refuse (UsageError, one line) a measurement estimated to take more than `limit_s`.

    The message says the estimate and, for each knob that can rescue the request on its own,
    the largest value that fits. Returns the Estimate when the request fits.
    """
    limit_s = MAX_WALL_S if limit_s is None else limit_s

    def cost(kk: Knobs) -> float:
        return estimate_measure(kk, model, repeats, trace).seconds
    est = estimate_measure(k, model, repeats, trace)
    if est.seconds <= limit_s:
        return est
    where = f" on {device_name}" if device_name else ""
    raise UsageError(refusal(what, est.seconds, limit_s, _fits(k, cost, limit_s, names),
                             f"{k.mode.value} N={k.n} at {k.work_us:g} µs per kernel{where}"))


def refusal(what: str, est_s: float, limit_s: float, fits: list[str], setting: str) -> str:
    """The one-line message of a refused request."""
    fix = (": lower " + _any_of(fits)) if fits else ": choose a smaller setting"
    return (f"{what} would take about {_seconds(est_s)} here ({setting}); the limit is "
            f"{limit_s:g} s{fix}")


def _fits(k: Knobs, cost, limit_s: float, names: dict) -> list[str]:
    """For n, work_us and (when set) extra_tax_us: the largest value that fits with the others
    unchanged, as "--n to 1200" phrases (knobs that cannot rescue the request are left out)."""
    out = []
    if cost(k.replace(n=1)) <= limit_s:
        lo, hi = 1, k.n  # cost(lo) fits, cost(hi) does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if cost(k.replace(n=mid)) <= limit_s else (lo, mid)
        out.append(f"{names['n']} to {lo}")
    for knob in ("work_us", "extra_tax_us"):
        value = getattr(k, knob)
        if value <= 0 or cost(k.replace(**{knob: 0.0})) > limit_s:
            continue
        lo, hi = 0.0, value
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if cost(k.replace(**{knob: mid})) <= limit_s else (lo, mid)
        out.append(f"{names[knob]} to {_round_down(lo):g}")
    return out


def _any_of(phrases: list[str]) -> str:
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + " or " + phrases[-1] + " (any one is enough)"


def _round_down(x: float) -> float:
    """Two significant figures, rounded down (a suggested bound must still fit)."""
    if x <= 0:
        return 0.0
    scale = 10 ** (math.floor(math.log10(x)) - 1)
    return math.floor(x / scale) * scale


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"


# ---- bench and the fusion lab --------------------------------------------------------------
def estimate_bench(n: int, work_us: float, rounds: int = 7, reps: int = 40) -> Estimate:
    """Estimated device seconds of engine/bench.py's run_bench (GPU only): seven cases, each run
    `rounds` × `reps` times, interleaved, plus one warm-up call and the captures."""
    step = {"eager": _cuda_step_s("eager", n, work_us, 0.0), "streams": _cuda_step_s("streams", n, work_us, 0.0),
            "replay": _cuda_step_s("replay", n, work_us, 0.0)}
    per_round = 2 * step["eager"] + 2 * step["streams"] + 3 * step["replay"]
    parts = {"timed": (rounds * reps + 1) * per_round,
             "setup": 2 * _cuda_step_s("capture", n, work_us, 0.0) + CUDA_COSTS.setup_s}
    return Estimate(SAFETY * sum(parts.values()), parts)


def check_bench(n: int, work_us: float, limit_s: float | None = None) -> Estimate:
    """Refuse a bench estimated to take more than `limit_s` (UsageError, one line)."""
    limit_s = MAX_WALL_S if limit_s is None else limit_s
    est = estimate_bench(n, work_us)
    if est.seconds <= limit_s:
        return est
    fits = []
    if estimate_bench(1, work_us).seconds <= limit_s:
        lo, hi = 1, n
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if estimate_bench(mid, work_us).seconds <= limit_s else (lo, mid)
        fits.append(f"--n to {lo}")
    if work_us > 0 and estimate_bench(n, 0.0).seconds <= limit_s:
        lo, hi = 0.0, work_us
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if estimate_bench(n, mid).seconds <= limit_s else (lo, mid)
        fits.append(f"--work-us to {_round_down(lo):g}")
    raise UsageError(refusal("bench", est.seconds, limit_s, fits, f"N={n} at {work_us:g} µs per kernel"))


def check_many(label: str, knobs: list[Knobs], model, trace: bool = True, limit_s: float | None = None,
               setting: str = "", lower: str = "") -> Estimate:
    """Refuse a request made of several measurements (a lab) whose sum exceeds `limit_s`;
    `lower` names what to lower ("n or work_us")."""
    limit_s = MAX_WALL_S if limit_s is None else limit_s
    ests = [estimate_measure(k, model, trace=trace) for k in knobs]
    total = Estimate(sum(e.seconds for e in ests), {f"{k.mode.value} N={k.n}": e.seconds for k, e in zip(knobs, ests)})
    if total.seconds > limit_s:
        raise UsageError(refusal(label, total.seconds, limit_s, [lower] if lower else [],
                                 setting or f"{len(knobs)} measurements"))
    return total


# ---- the decoder worked example (aot decoder, aot reduce-overhead) --------------------------------
# ms per token of each decoder variant, rounded up from decoder_h200.json (6.52, 0.506, 0.505,
# 0.323 ms on the H200); an experiment of reduce_overhead.py also copies to the CPU: 10 ms.
DECODER_MS_PER_TOKEN = {"eager": 8.0, "our_graph": 1.0, "raw_graph": 1.0, "reduce_overhead": 1.0}
EXPERIMENT_MS_PER_TOKEN = 10.0


def estimate_decoder(tokens: int, blocks: int, reduce_overhead: bool = True, experiments: bool = True) -> Estimate:
    """Estimated seconds of the token loops of `aot decoder` (and `aot reduce-overhead`, with
    blocks=0 and reduce_overhead=False): what grows with --tokens and --blocks. Compiles and
    captures are fixed costs of the example (tens of seconds) and not counted here."""
    ms = sum(v for k, v in DECODER_MS_PER_TOKEN.items() if reduce_overhead or k != "reduce_overhead")
    parts = {"timed blocks": blocks * tokens * ms / 1e3, "launch counts": 20 * ms / 1e3 if blocks else 0.0}
    if experiments:  # two experiments of 4 × tokens steps, a third of 4 × 10, and a few batches
        parts["reduce-overhead experiments"] = (8 * tokens + 60) * EXPERIMENT_MS_PER_TOKEN / 1e3
    return Estimate(SAFETY * sum(parts.values()), parts)


def check_decoder(tokens: int, blocks: int, reduce_overhead: bool = True, experiments: bool = True,
                  what: str = "aot decoder", limit_s: float | None = None) -> Estimate:
    """Refuse (UsageError, one line) token loops estimated past `limit_s`, naming the largest
    --tokens (and --blocks) that fit."""
    limit_s = MAX_WALL_S if limit_s is None else limit_s

    def cost(t: int, b: int) -> float:
        return estimate_decoder(t, b, reduce_overhead, experiments).seconds
    est = estimate_decoder(tokens, blocks, reduce_overhead, experiments)
    if est.seconds <= limit_s:
        return est
    fits = []
    for name, value, make in (("--tokens", tokens, lambda v: cost(v, blocks)),
                              ("--blocks", blocks, lambda v: cost(tokens, v))):
        if value <= 1 or make(1) > limit_s:
            continue
        lo, hi = 1, value
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if make(mid) <= limit_s else (lo, mid)
        fits.append(f"{name} to {lo}")
    setting = f"{tokens} tokens" + (f" x {blocks} blocks" if blocks else "")
    raise UsageError(refusal(what, est.seconds, limit_s, fits, setting))
