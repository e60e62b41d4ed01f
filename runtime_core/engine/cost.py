"""What a measurement will cost before it runs, and a one-line refusal when that is too much.

A request (a CLI call, a page's button) must finish in about a minute. The knobs allow far more:
`measure --backend sim --mode eager --n 20000 --work-us 10000` ran for 688 s. So every entry
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
Each device hands out its own model (Device.cost_model()), so nothing here asks which it is.

SIM_COSTS were measured on the 2-core development machine (SimDevice API calls timed in bulk,
best of 5; see `calibrate_sim()` to measure them again on another host); CUDA_COSTS are the
H200 recordings' costs rounded up. The total is multiplied by SAFETY, so the estimate is
conservative: it may refuse a request that would have just fit, never admit one that runs for
minutes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import UsageError
from ..knobs import Knobs, Mode, Policy
from .measure import TAX_SAMPLES, default_repeats

SIM_TAX_LAUNCHES = 200          # SimDevice.measure_tax
CUDA_TAX_LAUNCHES = 20 + 7 * 400  # CudaDevice.measure_tax

MAX_WALL_S = 60.0   # a request that would take longer is refused
SAFETY = 2.0        # estimate = SAFETY × the step-by-step sum

CLI_NAMES = {"n": "--n", "work_us": "--work-us", "extra_tax_us": "--extra-tax-us"}
PAGE_NAMES = {"n": "N (kernels in the chain)", "work_us": "the per-kernel work",
              "extra_tax_us": "the extra tax"}
API_NAMES = {"n": "n", "work_us": "work_us", "extra_tax_us": "extra_tax_us"}


@dataclass(frozen=True)
class SimCosts:
    """Python seconds SimDevice spends per simulated event on the development machine (2 cores).

    Measured values (best of 5, 5000 calls each) are in the comments; the fields round them up.
    """

    launch_s: float = 14e-6        # launch_chain_kernel: host span, heap event, engine step and the
    #                                race detector's bookkeeping (12.3 µs)
    sync_s: float = 13e-6          # a synchronize after each launch (eager launch+sync: 24.7 µs)
    node_s: float = 3.5e-6         # one node of a replayed graph (2.9 µs)
    record_s: float = 4.5e-6       # one launch recorded during capture (4.0 µs)
    spin_s: float = 2e-6           # a host_spin span (the extra tax costs no real time here)
    per_elem_s: float = 0.25e-9    # the kernel's numpy effect, per element (0.10 ns in cache,
    #                                0.19 ns at 10M elements; 0.16-0.25 ns inside measure())
    alloc_per_elem_s: float = 0.5e-9  # a fresh input buffer: zeros, fill, first touch
    fixed_s: float = 0.05          # executors, workload, result


@dataclass(frozen=True)
class CudaCosts:
    """Device costs, µs, rounded up from the H200 recordings (sweep_h200.json, bench_h200.json)."""

    tax_us: float = 25.0           # one launch call (H200: ~9 µs; the slow host state ~16 µs)
    sync_us: float = 25.0          # a blocking round trip (H200 eager: 16.5-23 µs per kernel in all)
    graph_launch_us: float = 30.0  # cudaGraphLaunch plus the graph's launch latency
    node_gap_us: float = 1.0       # between two nodes of a replay
    instantiate_us: float = 2.0    # per node, capture + instantiate
    profiler_factor: float = 3.0   # a step under torch.profiler (trace worker) vs an untraced one
    setup_s: float = 5.0           # first use in a process: the size table, the trace worker


SIM_COSTS = SimCosts()
CUDA_COSTS = CudaCosts()


@dataclass
class Estimate:
    """Estimated wall seconds of one request, and where they go (seconds before SAFETY)."""

    seconds: float
    parts: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"estimate_s": round(self.seconds, 3), "parts_s": {k: round(v, 3) for k, v in self.parts.items()}}


# ---- each device's cost model (Device.cost_model() returns one) ----------------------------
class SimCostModel:
    """Python seconds a SimDevice spends: it simulates every launch, node and sync in Python and
    runs each kernel's effect on a numpy buffer of work_us × elems_per_us elements."""

    deterministic = True

    def __init__(self, elems_per_us: float, c: SimCosts = SIM_COSTS):
        self.elems_per_us, self.c = elems_per_us, c

    def step_s(self, kind: str, n: int, work_us: float, extra_us: float, scale: float = 1.0) -> float:
        """Seconds of one step of `kind` ("eager", "streams", "replay", "capture")."""
        c = self.c
        effect = c.per_elem_s * (int(max(1, round(work_us * self.elems_per_us)) * scale) + 256)
        spin = c.spin_s if extra_us > 0 else 0.0
        if kind == "eager":
            return n * (c.launch_s + c.sync_s + effect + spin)
        if kind == "streams":
            return n * (c.launch_s + effect + spin) + c.sync_s
        if kind == "replay":  # copy into the static buffer, one graph launch, N nodes, sync
            return (c.launch_s + effect) + c.launch_s + spin + n * (c.node_s + effect) + c.sync_s
        if kind == "capture":  # warm-up on a side stream, then N launches recorded
            return n * (c.launch_s + effect) + n * c.record_s + c.sync_s
        raise ValueError(kind)

    def fixed_parts(self, k: Knobs, calls: int) -> dict[str, float]:
        numel = max(1, int(round(k.work_us * self.elems_per_us)))
        return {"buffers": calls * self.c.alloc_per_elem_s * 2 * numel + self.c.fixed_s,
                "tax": SIM_TAX_LAUNCHES * self.c.launch_s}  # one sample on a virtual clock


class CudaCostModel:
    """Device seconds on a GPU (conservative: the parts add up, rounded-up H200 costs)."""

    deterministic = False
    profiler_factor = CUDA_COSTS.profiler_factor

    def __init__(self, c: CudaCosts = CUDA_COSTS):
        self.c = c

    def step_s(self, kind: str, n: int, work_us: float, extra_us: float, scale: float = 1.0) -> float:
        c, work_us = self.c, work_us * scale
        if kind == "eager":
            us = n * (c.tax_us + extra_us + c.sync_us + work_us)
        elif kind == "streams":
            us = n * (c.tax_us + extra_us + work_us) + c.sync_us
        elif kind == "replay":
            us = (c.tax_us + work_us) + extra_us + c.graph_launch_us + n * (work_us + c.node_gap_us) + c.sync_us
        elif kind == "capture":
            us = n * (c.tax_us + work_us) + n * (c.tax_us + c.instantiate_us) + c.sync_us
        else:
            raise ValueError(kind)
        return us / 1e6

    def fixed_parts(self, k: Knobs, calls: int) -> dict[str, float]:
        # GPU busy time is timed in bulk: a captured chain replayed for >= 3 ms; the tax, measured
        # TAX_SAMPLES times (7 batches of 400 launches after 20 warm ones, each).
        busy = self.step_s("capture", k.n, k.work_us, 0.0) + 2 * self.step_s("replay", k.n, k.work_us, 0.0)
        return {"busy_time_and_tax": busy + 0.003 + TAX_SAMPLES * CUDA_TAX_LAUNCHES * self.c.tax_us / 1e6,
                "process_setup": self.c.setup_s}


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
    if k.missed_shape:  # fallback: the guard misses, every dynamic call runs eagerly
        return {"setup": [("capture", 1, 1.0), ("replay", 1, 1.0)], "timed": [("eager", repeats, 1.0)],
                "trace": [("capture", 1, 1.0), ("replay", 1, 1.0), ("eager", 3, 1.0)]}
    return {"setup": [("capture", 1, 1.0), ("replay", 1, 1.0)], "timed": [("replay", repeats, 1.0)],
            "trace": [("capture", 1, 1.0), ("replay", 4, 1.0)]}


def estimate_measure(k: Knobs, model, repeats: int | None = None, trace: bool = True) -> Estimate:
    """Estimated wall seconds of `measure(dev, k, repeats, trace)` under `model` (the device's
    cost_model(): SimCostModel or CudaCostModel). Checks `k` against the measure bounds first."""
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


# ---- calibration ---------------------------------------------------------------------------
def calibrate_sim(calls: int = 5000, best_of: int = 5) -> dict:
    """Measure SimCosts' per-event seconds on this host (a few seconds). Returns µs per event:
    launch, launch+sync (eager), node, record (capture), and ns per element of a kernel effect."""
    import time

    from .capture import warm_up_and_capture
    from .sim_device import SimDevice

    def best(fn) -> float:
        times = []
        for _ in range(best_of):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    dev = SimDevice()
    x = dev.new_buffer(1)
    big = dev.new_buffer(1_000_000)

    def launches(buf=x, k=calls):
        for _ in range(k):
            dev.launch_chain_kernel(buf)
        dev.synchronize()

    def eager():
        for _ in range(calls):
            dev.launch_chain_kernel(x)
            dev.synchronize()
    graph, _ = warm_up_and_capture(dev, lambda: [dev.launch_chain_kernel(x) for _ in range(calls)])

    def replay():
        graph.replay()
        dev.synchronize()
    launch = best(launches) / calls
    capture = best(lambda: warm_up_and_capture(dev, lambda: [dev.launch_chain_kernel(x) for _ in range(calls)]))
    big_launch = best(lambda: launches(big, 200)) / 200
    return {"launch_us": launch * 1e6, "eager_launch_sync_us": best(eager) / calls * 1e6,
            "node_us": best(replay) / calls * 1e6, "record_us": (capture / calls - launch) * 1e6,
            "per_elem_ns": (big_launch - launch) / 1_000_000 * 1e9}


if __name__ == "__main__":  # python -m runtime_core.engine.cost: this host's simulator costs
    import json
    print(json.dumps({k: round(v, 3) for k, v in calibrate_sim().items()}, indent=2))
