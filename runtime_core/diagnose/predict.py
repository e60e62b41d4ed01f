"""The calibrated launch model applied to one step of a real network: eager and graph, predicted.

What the prediction may use, and nothing else (no graph run, no timed eager step):
    K   GPU operations in one step (kernels, plus device copies and memsets), counted by the
        profiler on one eager step in the worker process
    B   GPU busy time of that step, µs: the sum of those operations' durations (profiler)
    H   host dispatch time of one step, µs: the CPU time to enqueue it without waiting for the
        GPU, measured on an unprofiled step (the profiler inflates host time)
    n   input tensors a graph step copies into its static buffers
    Kc, Bc  the same two counts of one eager step profiled *as it would be captured*
        (profile_step.capture_answer: libraries that ask torch.cuda.is_current_stream_capturing()
        take their capture-safe branch; transformers then builds an explicit attention mask, which
        adds operations and costs SDPA its fastest kernel). Nothing is captured to get them.
and the machine's constants (runtime_core.constants.Constants: measured by calibrate() on the
chain, or read from a sweep recording's meta.calibration), plus the launch tax t:
    s   sync_us           a synchronize round trip at the end of a step
    e   eager_floor_us    the floor under a launch + sync round trip
    L   fixed_us          launch latency of a graph step (replay call to first node)
    g   graph_launch_us   host cost of one cudaGraphLaunch (None: one launch tax t)
    f   kernel_floor_us   GPU time of the smallest kernel (a tiny static copy)
    γg  node_gap_us       GPU gap between consecutive nodes of a replayed graph
    γs  stream_gap_us     GPU gap between kernels launched one by one (where the device's
                          node_costs recording has a "stream" section: the median over kernels of
                          our own making, model/stream_gaps.py, as γn below)
    t   tax_us            host cost of one bare launch (each static copy is one)

    eager   = max(H − t + max(e, t + B/K + s),  H/K + B + (K−1)·γs + s)   (closed form)
    graph   = n·t + max(e, max(g + L, n·f) + Bc + (Kc−1)·γn + Σ μ(memset) + s)
    speedup = eager / graph

γn is what a node costs beyond its eager-profiled kernel on kernels of our own making: the median
over model/node_costs.py's configs (57 kernels of every kind, +0.20 µs on the H200) where the
device has that recording, else the chain's γg (one kernel, and its calibration moves 2x between
runs: 0.09 to 0.20 µs in one grid's three). μ is what a memset costs between kernels beyond one in
a chain of memsets (model/node_mix.py): on the H200 one of 4 to 4,096 bytes costs 0.6-0.9 µs more
(cuBLAS's split-K and cuDNN's attention zero 4 to 192 bytes of workspace before their kernel),
one of 16 KB or more nothing; a copy, or a kernel after a kernel of another function, costs
nothing more either (so neither is in the formula). A memset of unknown size (a profile recorded
before op rows carried bytes) is priced as the smallest measured.

The band (`predict_band`): H is timed in 60 rounds spread over 15 seconds before anything is
predicted and read as the host's floor, its fastest round (diagnosis.host_rounds, host_floor.py:
the host changes state on that time scale, so rounds back to back see one state only); the eager
step is evaluated with that floor moved up and down by as far as it moved between the first and
the second half of the rounds (host_floor.floor_interval; a point recorded before the floor: the
lowest and highest round), with γs moved by ±δs per gap, and the graph step with γn moved by ±δ
per node. δ and δs are half the p10-p90 spread of what a node, and a stream gap, cost beyond the
profiled kernel over kernels of our own making (model/node_costs.py and model/stream_gaps.py:
grids of 1 to 16k blocks, 1 to 120 µs, 1 to 96 tensor arguments, cuBLAS, layer norm, softmax,
copies and fills; 0 where the recording lacks them). A kernel of more than a few µs strays by a
share of its own duration instead (beside the median node, a 7 µs softmax ran 0.9 µs faster in a
graph than profiled, an 8 µs layer norm 0.5 µs faster): each operation also moves by
max(0, ρ·d − δ), ρ half the p10-p90 spread of (cost − median) / d over those kernels of 5 µs or
more (machine.relative_spread; ρg for nodes, ρs for gaps: 3.3% and 3.5% on the H200). The host's drift and the GPU's node costs
are independent errors, so the two sides' relative widths add as a root of squares:
    band = S·exp(∓√(ln(E/E_lo)² + ln(G_hi/G)²)), with E_lo = eager(H_lo, γs − δs, d − ρs·d ...)
           and G_hi = graph(γn + δ, d + ρg·d ...), and the upper end likewise.

Where the profile lists every operation with its duration (every diagnosis since 2026-11-30), the
eager step is not the closed form's single max() but the same rules applied op by op
(eager_queue_us): the host readies operation i at (i+1)·H/K, or, where the profile kept when each
launch call returned (diagnosis.op_ready), at H times that call's share of the profiled dispatch;
the GPU runs it after the previous one and γs. With long and short operations mixed, the GPU
waits behind the host during the short ones even where B outlasts H (GPT-2's prompt in bf16 at batch 64: H 5.0 ms, B 3.4 ms, the closed form
5.0 ms, op by op 6.7 ms). A point without op rows (the zoo's recording) keeps the closed form.

Eager is PyTorch's own dispatch, which is asynchronous (the widget's *streams* mode): the host
enqueues the K operations in H µs while the GPU runs them, and the step ends when both are done
and the final sync returns. Host-bound, the GPU still has to run the last operation (B/K on
average) after the host's last launch (which began at H − t); GPU-bound, the GPU starts after
the first launch (H/K on average) and then runs B plus a gap between kernels. It is
model.formulas.streams_wall_us with N·t replaced by H and N·w by B. The graph step is
formulas.graph_wall_us with N·w replaced by B: n copies into the static inputs (their launches
on the host), one replay, the K nodes back to back, one sync. Both are the closed forms of the
simulator's rules (engine/sim/device.py), with the same constants.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..constants import Constants
from ..errors import UsageError

SPEEDUP_THRESHOLD = 1.2  # below this, graphs "do not help" (the crossover of the batch sweep)


@dataclass(frozen=True)
class Machine:
    """The constants a prediction uses, and where they came from.

    Args:
        consts: the calibrated constants (sync, graph launch, gaps, floor, L).
        tax_us: host cost of one bare launch on this machine, µs (a static copy costs one).
        source: "calibrate() on <GPU> ...", "recording sweep_h200.json", "SimDevice parameters".
        node_spread_us: δ, how far a node's cost beyond its kernel varies over kernels of our own
            making (model/node_costs.py's recording; 0 where none is known): the band's graph side.
        node_extra_us, memset_extra_us: γn and μ from that recording (None, (): the chain's γg, none).
        stream_gap_extra_us: γs measured on kernels of our own making (model/stream_gaps.py, the
            recording's "stream" section; None: the chain's), and stream_spread_us its δs (the
            band's eager side; 0 where none is known).
        node_rel_spread, stream_rel_spread: ρg and ρs, how far a long kernel's node cost and
            stream gap move as a share of its duration (machine.relative_spread; 0: unknown).
    """

    consts: Constants
    tax_us: float
    source: str
    node_spread_us: float = 0.0
    node_extra_us: float | None = None
    memset_extra_us: tuple = ()
    stream_gap_extra_us: float | None = None
    stream_spread_us: float = 0.0
    node_rel_spread: float = 0.0
    stream_rel_spread: float = 0.0

    @property
    def node_cost_us(self) -> float:
        """γn: a node's cost beyond its kernel, from kernels of our own making, else the chain's γg."""
        return self.consts.node_gap_us if self.node_extra_us is None else self.node_extra_us

    @property
    def eager_gap_us(self) -> float:
        """γs: the gap between separately launched operations, from kernels of our own making, else
        the chain's."""
        return stream_gap_us(self.consts) if self.stream_gap_extra_us is None else self.stream_gap_extra_us

    def memset_us(self, nbytes: int | None) -> float:
        """μ: what one memset of `nbytes` costs between kernels beyond its own duration and γn: the
        measured size at or above it (the largest measured past them all; the smallest when the
        size is unknown), 0 where nothing was measured. Never below 0: a memset costs no less than
        in its own chain (the large ones measure within ±0.03 µs of it)."""
        table = self.memset_extra_us
        if not table:
            return 0.0
        if nbytes is None:
            return max(0.0, float(table[0][1]))
        return max(0.0, float(next((us for b, us in table if b >= nbytes), table[-1][1])))

    def as_dict(self) -> dict:
        return {"constants": self.consts.as_dict(), "tax_us": round(self.tax_us, 3),
                "stream_gap_us": round(self.eager_gap_us, 4), "source": self.source,
                "node_spread_us": round(self.node_spread_us, 4),
                "node_extra_us": None if self.node_extra_us is None else round(self.node_extra_us, 4),
                "memset_extra_us": [list(r) for r in self.memset_extra_us],
                "stream_spread_us": round(self.stream_spread_us, 4),
                "node_rel_spread": round(self.node_rel_spread, 4),
                "stream_rel_spread": round(self.stream_rel_spread, 4)}


@dataclass(frozen=True)
class StepCounts:
    """What one profiled eager step and one unprofiled dispatch measured (the prediction's input).

    Args:
        gpu_ops: K, GPU operations per step (kernels + device copies + memsets).
        busy_us: B, their summed GPU time, µs.
        host_us: H, host dispatch time of one unprofiled step, µs.
        inputs: n, input tensors a graph step copies in.
        captured_ops, captured_busy_us: Kc and Bc, the step as it would be captured (None: as K, B).
        graph_memsets: the byte size of each memset node of the captured step (None: unknown).
        op_us: the duration of each of the K operations of the profiled eager step, in the order
            they ran (empty: unknown, the closed form is used).
        op_ready: for each of the K operations, the share of the host's dispatch after which it
            was queued, from the profiled step's launch calls (empty: unknown, each operation is
            taken as queued after an even share, (i+1)/K).
        graph_op_us: the duration of each of the Kc operations of the step profiled as it would
            be captured (empty: unknown; the band then reads the eager step's where they match).
    """

    gpu_ops: int
    busy_us: float
    host_us: float
    inputs: int
    captured_ops: int | None = None
    captured_busy_us: float | None = None
    graph_memsets: tuple = ()
    op_us: tuple = ()
    op_ready: tuple = ()
    graph_op_us: tuple = ()

    @property
    def op_by_op(self) -> bool:
        """Whether the profile listed every operation's duration (the eager step is then eager_queue_us)."""
        return len(self.op_us) == self.gpu_ops

    @property
    def ready_profiled(self) -> bool:
        """Whether the queue takes each operation's ready time from the profile (else even shares)."""
        return self.op_by_op and len(self.op_ready) == self.gpu_ops

    @property
    def graph_ops(self) -> int:
        return self.gpu_ops if self.captured_ops is None else self.captured_ops

    @property
    def graph_busy_us(self) -> float:
        return self.busy_us if self.captured_busy_us is None else self.captured_busy_us

    @property
    def graph_durations(self) -> tuple:
        """Each graph node's profiled duration where known (the captured step's, else the eager
        step's when it has as many operations), else empty."""
        for us in (self.graph_op_us, self.op_us):
            if len(us) == self.graph_ops:
                return us
        return ()

    def __post_init__(self):
        if self.gpu_ops < 1:
            raise UsageError("a step must launch at least one GPU operation to be predicted; "
                             "the profiler counted none (is the model on the GPU?)")


def stream_gap_us(c: Constants) -> float:
    """γs: the GPU gap between separately launched kernels (0 where the constants lack it)."""
    return float(getattr(c, "stream_gap_us", 0.0) or 0.0)


def eager_step_us(k: StepCounts, m: Machine, gap_shift_us: float = 0.0) -> float:
    """Asynchronous eager step, µs: op by op where the profile lists every operation's duration
    (eager_queue_us), else the closed form max(H − t + max(e, t + B/K + s), H/K + B + (K−1)·γs + s).
    `gap_shift_us` moves γs (the band's ±δs)."""
    c, K, t = m.consts, k.gpu_ops, m.tax_us
    gap = max(0.0, m.eager_gap_us + gap_shift_us)
    if k.op_by_op:
        return eager_queue_us(k, m, gap)
    host_bound = k.host_us - t + max(c.eager_floor_us, t + k.busy_us / K + c.sync_us)
    gpu_bound = k.host_us / K + k.busy_us + (K - 1) * gap + c.sync_us
    return max(host_bound, gpu_bound)


def eager_queue_us(k: StepCounts, m: Machine, gap: float) -> float:
    """The closed form's rules applied to each operation in turn: the host makes operation i
    ready at (i+1)·H/K, or, where the profile timed every launch call, at H times the share of
    the profiled dispatch after which that call returned (the Python before the first launch and
    a slow stretch of host work then show); the GPU starts it when it is ready and the previous
    one has ended (plus γs after the first), and runs it for its profiled duration; then the sync.
    Where long and short operations alternate, the GPU idles behind the host during the short ones
    even when B as a whole outlasts H: the sum of local maxima, which the closed form's single
    max() misses."""
    c, K = m.consts, k.gpu_ops
    ready = ([k.host_us * r for r in k.op_ready] if k.ready_profiled
             else [(i + 1) * k.host_us / K for i in range(K)])
    end = 0.0
    for i, us in enumerate(k.op_us):
        end = max(end + gap if i else 0.0, ready[i]) + us
    return max(k.host_us - m.tax_us + c.eager_floor_us, end + c.sync_us)


def memsets_us(k: StepCounts, m: Machine) -> float:
    """Σ μ: what the captured step's memset nodes cost between its kernels, beyond γn each."""
    return sum(m.memset_us(b) for b in k.graph_memsets)


def graph_step_us(k: StepCounts, m: Machine, node_shift_us: float = 0.0) -> float:
    """One replay after the static copies: n·t + max(e, max(g + L, n·f) + Bc + (Kc−1)·γn + Σμ + s),
    µs. `node_shift_us` moves γn (the band's ±δ)."""
    c, n = m.consts, k.inputs
    g = m.tax_us if c.graph_launch_us is None else c.graph_launch_us
    gap = max(0.0, m.node_cost_us + node_shift_us)
    run = (max(g + c.fixed_us, n * c.kernel_floor_us) + k.graph_busy_us + (k.graph_ops - 1) * gap
           + memsets_us(k, m) + c.sync_us)
    return n * m.tax_us + max(c.eager_floor_us, run)


def predict_band(k: StepCounts, m: Machine, host_lo_us: float, host_hi_us: float, node_spread_us: float) -> list:
    """[lo, hi] of the speedup. Each side gets its own interval, from what moves it:
    - eager at the low and high end of H's interval, with γs ∓ δs and each operation's duration
      ∓ its long-kernel share beyond δs (max(0, ρs·d − δs); op by op only);
    - the graph step with γn ± δ per node and each node's long-kernel share beyond δ
      (Σ max(0, ρg·d − δ); without the nodes' durations, max(0, ρg·Bc − δ·Kc)).
    The host's drift and the GPU's node costs are independent errors, so the two sides' relative
    widths add as a root of squares: lo = S·exp(−√(ln(E/E_lo)² + ln(G_hi/G)²)), hi likewise with
    E_hi and G_lo. Contains the point prediction S = E/G when H lies between the two."""
    import math
    from dataclasses import replace
    ds, d = m.stream_spread_us, node_spread_us
    eager, graph = eager_step_us(k, m), graph_step_us(k, m)
    share = tuple(max(0.0, m.stream_rel_spread * us - ds) for us in k.op_us)
    fast = replace(k, host_us=host_lo_us, op_us=tuple(us - x for us, x in zip(k.op_us, share)))
    slow = replace(k, host_us=host_hi_us, op_us=tuple(us + x for us, x in zip(k.op_us, share)))
    e_lo, e_hi = eager_step_us(fast, m, -ds), eager_step_us(slow, m, ds)
    durations = k.graph_durations
    long = (sum(max(0.0, m.node_rel_spread * us - d) for us in durations) if durations
            else max(0.0, m.node_rel_spread * k.graph_busy_us - d * k.graph_ops))
    g_lo, g_hi = graph_step_us(k, m, -d) - long, graph_step_us(k, m, d) + long
    wide = lambda a, b: max(0.0, math.log(a / b))  # noqa: E731
    down = math.hypot(wide(eager, e_lo), wide(g_hi, graph))
    up = math.hypot(wide(e_hi, eager), wide(graph, g_lo))
    speedup = eager / graph
    return [round(speedup * math.exp(-down), 4), round(speedup * math.exp(up), 4)]


def saving_split(k: StepCounts, m: Machine) -> dict:
    """Where the predicted saving (eager − graph, µs) comes from, in parts that add up to it:
    the host time the GPU waited for, removed (the eager step less the GPU's own work launched one
    by one: B + (K−1)·γs + s; never negative), the GPU gaps removed (K−1 stream gaps become Kc−1
    node gaps and the memsets' μ), and what the graph adds: its launch (the replay beyond its
    nodes' work, floor included), the n static input copies, and the work the captured step runs
    beyond the eager one (Bc − B, where capture takes another branch)."""
    c = m.consts
    eager, graph = eager_step_us(k, m), graph_step_us(k, m)
    gaps_gpu = (k.gpu_ops - 1) * m.eager_gap_us
    nodes = (k.graph_ops - 1) * m.node_cost_us + memsets_us(k, m)
    host = eager - (k.busy_us + gaps_gpu + c.sync_us)
    copies = k.inputs * m.tax_us
    launch = graph - copies - (k.graph_busy_us + nodes + c.sync_us)
    return {"saving_us": round(eager - graph, 3), "host_dispatch_removed_us": round(host, 3),
            "gpu_gaps_removed_us": round(gaps_gpu - nodes, 3), "launch_added_us": round(launch, 3),
            "copy_added_us": round(copies, 3), "work_added_us": round(k.graph_busy_us - k.busy_us, 3)}


def saving_parts(sv: dict) -> float:
    """The split's parts added up (the saving): removed less added. A split recorded before the
    launch and the captured work were parts of their own has neither (0)."""
    return (sv["host_dispatch_removed_us"] + sv["gpu_gaps_removed_us"] - sv.get("launch_added_us", 0.0)
            - sv["copy_added_us"] - sv.get("work_added_us", 0.0))


def predict_step(k: StepCounts, m: Machine) -> dict:
    """Predicted eager and graph step times (µs), the speedup, and the GPU's idle share in eager."""
    eager, graph = eager_step_us(k, m), graph_step_us(k, m)
    return {"eager_us": round(eager, 3), "graph_us": round(graph, 3),
            "graph_speedup": round(eager / graph, 4),
            "eager_gpu_idle_share": round(max(0.0, 1.0 - k.busy_us / eager), 4)}
