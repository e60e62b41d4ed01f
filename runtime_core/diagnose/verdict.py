"""The verdict of a diagnosis: is this step launch-bound, and will CUDA graphs help? And its
regime by name: overhead-bound (launch-bound) or GPU-bound (compute or memory bandwidth).

Launch-bound means the GPU waits for the host: dispatching the step's K operations takes the
host longer (H) than the GPU needs to run them (B plus a gap per kernel). Whether graphs help is
the predicted speedup against the 1.2x threshold. Both come with the numbers that decide them.
"""
from __future__ import annotations

from .predict import SPEEDUP_THRESHOLD, Machine, StepCounts, saving_split


def verdict(k: StepCounts, m: Machine, predicted_speedup: float) -> dict:
    """The call (launch-bound or not, graphs help or not), a headline, and the deciding numbers."""
    K = k.gpu_ops
    gpu_us = k.busy_us + K * m.eager_gap_us
    launch_bound = k.host_us > gpu_us
    helps = predicted_speedup >= SPEEDUP_THRESHOLD
    return {"launch_bound": launch_bound, "graphs_help": helps,
            "headline": headline(launch_bound, predicted_speedup, k.graph_busy_us - k.busy_us),
            "because": because(k.host_us, K, k.busy_us, gpu_us, helps,
                               saving_split(k, m)["host_dispatch_removed_us"],
                               captured=(k.captured_ops, k.captured_busy_us)),
            "regime": regime(launch_bound, k.host_us, gpu_us, predicted_speedup),
            "host_dispatch_us": round(k.host_us, 3), "gpu_us": round(gpu_us, 3),
            "host_to_gpu_ratio": round(k.host_us / gpu_us, 3) if gpu_us else None,
            "threshold": SPEEDUP_THRESHOLD}


def speedup_shown(s: float, digits: int = 2) -> str:
    """`s` to `digits` decimals, or to one more, or cut (not rounded) there, where rounding would
    put it on the other side of a line the headline draws: 0.9951x is "0.995x", slower, not
    "1.00x"; 1.19999x is "1.199x", gaining little, not "1.20x"."""
    import math

    def same_side(text: str) -> bool:
        return all((s < line) == (float(text) < line) for line in (1.0, SPEEDUP_THRESHOLD))
    for d in (digits, digits + 1):
        if same_side(shown := f"{s:.{d}f}"):
            return shown
    d = digits + 1  # rounding goes up across the line only from below it: cut instead
    return f"{math.floor(s * 10 ** d) / 10 ** d:.{d}f}"


def headline(launch_bound: bool, s: float, work_added_us: float = 0.0) -> str:
    """The verdict in one line: the regime, and what a graph would do at predicted speedup `s`
    (help from the 1.2x threshold, gain little below it, slow the step below 1x). `work_added_us`:
    the GPU work the captured step runs beyond the eager one, named where it makes the graph slower."""
    if s < 1.0:
        why = ": as captured, the step runs more GPU work than eager does" if work_added_us > 0.5 else ""
        return (f"{'Launch-bound, yet' if launch_bound else 'GPU-bound, and'} a CUDA graph would make this step "
                f"slower (predicted {speedup_shown(s)}x){why}")
    return {
        (True, True): f"Launch-bound: CUDA graphs should help (predicted {speedup_shown(s)}x)",
        (True, False): f"Only just launch-bound: graphs would gain little (predicted {speedup_shown(s)}x)",
        (False, True): f"GPU-bound, but graphs still help (predicted {speedup_shown(s)}x): the launch latency "
                       f"and per-kernel gaps they remove are a large share of a short step",
        (False, False): f"GPU-bound: CUDA graphs will barely help (predicted {speedup_shown(s)}x)",
    }[(launch_bound, s >= SPEEDUP_THRESHOLD)]


def regime(launch_bound: bool, host_us: float, gpu_us: float, speedup: float | None = None,
           capturable: bool = True) -> str:
    """The regime of the step, named as practitioners name it, from the verdict's own numbers.
    `gpu_us` is the GPU's time for the step launched op by op: its kernels and the gaps between
    them. `speedup`: the predicted graph speedup, so the sentence never promises what the headline
    denies (an overhead-bound step that graphs help only a little, or slow down). `capturable`:
    False where the capture failed, so no graph is offered as the remedy."""
    if not launch_bound:
        lead = (f"Regime: GPU-bound. The GPU's kernels and the gaps between them ({gpu_us:,.0f} µs) outlast "
                f"the host's dispatch ({host_us:,.0f} µs). Whether it is compute-bound or memory-bandwidth-bound "
                "depends on each kernel's arithmetic per byte moved, which one profiled step does not show")
        if speedup is not None and speedup >= SPEEDUP_THRESHOLD and capturable:
            return lead + ("; the gaps between its many short kernels are still a large share of it, and a graph "
                           "removes those.")
        return lead + "; either way, faster kernels help more than fewer launches."
    lead = (f"Regime: launch-bound (overhead-bound). The host's dispatch ({host_us:,.0f} µs) outlasts the "
            f"GPU's kernels and the gaps between them ({gpu_us:,.0f} µs), so the launch tax sets the step time")
    if not capturable:
        return lead + ("; a graph would remove it, but this step cannot be captured whole, so only a part "
                       "captured on its own, or fewer launches, can.")
    if speedup is None or speedup >= SPEEDUP_THRESHOLD:
        return lead + "; graphs attack exactly this."
    if speedup >= 1.0:
        return lead + (", but only just: the GPU's own work is most of the step, and a graph leaves that "
                       "work as it is.")
    return lead + (", yet the step as captured costs more than the launches a graph removes.")


def branch_differs(gpu_ops: int, busy_us: float, captured_ops: int | None, captured_busy_us: float | None) -> bool:
    """Whether the step as captured is another step: other operations, or kernels more than 5% longer
    or shorter (the network takes another branch under capture)."""
    if captured_ops is None or captured_busy_us is None:
        return False
    return captured_ops != gpu_ops or abs(captured_busy_us - busy_us) > 0.05 * busy_us


def because(host_us: float, gpu_ops: int, busy_us: float, gpu_us: float, helps: bool | None = None,
            wait_us: float | None = None, captured: tuple | None = None) -> str:
    """Why: the host's dispatch time against the GPU's time for the same K operations launched one
    by one (B of kernels plus the gaps between them), each split per operation. `helps`: whether
    graphs are predicted to help (False: a launch-bound step says how little the GPU waits).
    `wait_us`: that wait as the saving's split prices it (predict.saving_split's host time removed:
    the predicted eager step beyond the GPU's own work and the sync), so the sentence and the
    split's table quote one number; without it, H less the GPU's time. `captured`: (Kc, Bc), the
    step as it would be captured, named where it is another step (branch_differs). Pages call it on
    a recorded point's own numbers, so older recordings read the same way."""
    K = gpu_ops
    gaps = max(0.0, gpu_us - busy_us)
    # H is timed on its own, before the eager steps: the host drifts between the two, so a step
    # timed later can come out a little under it ("took", not "needs")
    text = (f"Timed on its own, the host took {host_us:,.0f} µs to dispatch {K} GPU operations "
            f"({host_us / K:.1f} µs each); "
            f"the GPU needs {gpu_us:,.0f} µs to run them one by one ({gpu_us / K:.1f} µs each): "
            f"{busy_us:,.0f} µs of kernels and {gaps:,.0f} µs of gaps between separately launched ones. ")
    if host_us <= gpu_us:
        return text + "The host runs ahead of the GPU, so removing launches removes little of the step."
    if helps is False:
        if wait_us is None:
            return text + (f"The GPU waits for the host, but only about {host_us - gpu_us:,.0f} µs a step: a graph "
                           f"removes that wait and the gaps, and the GPU's own work remains.")
        return text + (f"The GPU waits for the host, but a graph would remove only about {max(0.0, wait_us):,.0f} µs "
                       f"of waiting a step (the predicted eager step beyond the GPU's own work and its closing "
                       f"sync), and the gaps; the GPU's own work remains.")
    if captured and branch_differs(gpu_ops, busy_us, *captured):
        return text + (f"The GPU waits for the host, and a graph would replay the step with one launch, but the "
                       f"step it captures is another one: {captured[0]} operations and {captured[1]:,.0f} µs of "
                       f"kernels.")
    return text + "The GPU waits for the host, and a graph replays all of them with one launch."
