"""The verdict of a diagnosis: is this step launch-bound, and will CUDA graphs help?

Launch-bound means the GPU waits for the host: dispatching the step's K operations takes the
host longer (H) than the GPU needs to run them (B plus a gap per kernel). Whether graphs help is
the predicted speedup against the 1.2x threshold. Both come with the numbers that decide them.
"""
from __future__ import annotations

from .predict import SPEEDUP_THRESHOLD, Machine, StepCounts, stream_gap_us


def verdict(k: StepCounts, m: Machine, predicted_speedup: float) -> dict:
    """The call (launch-bound or not, graphs help or not), a headline, and the deciding numbers."""
    K = k.gpu_ops
    gpu_us = k.busy_us + K * stream_gap_us(m.consts)
    launch_bound = k.host_us > gpu_us
    helps = predicted_speedup >= SPEEDUP_THRESHOLD
    s = predicted_speedup
    headline = {
        (True, True): f"Launch-bound: CUDA graphs should help (predicted {s:.1f}x)",
        (True, False): f"Only just launch-bound: graphs would gain little (predicted {s:.2f}x)",
        (False, True): f"GPU-bound, but graphs still help (predicted {s:.2f}x): the launch latency "
                       f"and per-kernel gaps they remove are a large share of a short step",
        (False, False): f"GPU-bound: CUDA graphs will barely help (predicted {s:.2f}x)",
    }[(launch_bound, helps)]
    because = (f"The host needs {k.host_us:,.0f} µs to dispatch {K} GPU operations "
               f"({k.host_us / K:.1f} µs each); the GPU needs {gpu_us:,.0f} µs to run them "
               f"({gpu_us / K:.1f} µs each). ")
    because += ("The GPU waits for the host, and a graph replays all of them with one launch."
                if launch_bound else
                "The host runs ahead of the GPU, so removing launches removes little of the step.")
    return {"launch_bound": launch_bound, "graphs_help": helps, "headline": headline,
            "because": because, "host_dispatch_us": round(k.host_us, 3), "gpu_us": round(gpu_us, 3),
            "host_to_gpu_ratio": round(k.host_us / gpu_us, 3) if gpu_us else None,
            "threshold": SPEEDUP_THRESHOLD}
