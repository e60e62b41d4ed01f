"""What a graph replay costs, from the calibrated constants of a sweep recording: the rows §4's
page shows next to its prose (through the same named figures the prose uses), each with the one
experiment that measured it (constants.METHODS), and the table of every constant for the widget's
model tab."""
from __future__ import annotations

from ..constants import METHODS
from .figures import field_text

# (figure, what it is, the METHODS key of its experiment, why it matters)
ROWS = (
    ("sweep.graph_launch_us_at_1", "host: one cudaGraphLaunch, 1-node graph", "graph_launch_us",
     "what the CPU pays per replay, instead of one launch per kernel"),
    ("sweep.graph_launch_us_at_120", "host: one cudaGraphLaunch, 120-node graph", "graph_launch_per_node_us",
     "the replay call grows a little with the graph: the model adds the per-node growth"),
    ("sweep.graph_launch_us_at_1000", "host: one cudaGraphLaunch, 1000-node graph", "graph_launch_per_node_us",
     "still one call, whatever the node count"),
    ("sweep.graph_upload_us", "host: extra on a 1-node graph's first replay", "graph_upload_us",
     "the graph is uploaded to the device once"),
    ("sweep.graph_upload_per_node_us", "host: that upload, per extra node", "graph_upload_per_node_us",
     "a big graph's first replay is slow; a capture storm pays it every call"),
    ("sweep.fixed_us", "GPU: replay call returns → first node starts", "fixed_us",
     "a graph is scheduled as a whole before it runs"),
    ("sweep.node_gap_us", "GPU: gap between two graph nodes (what a step pays)", "node_gap_us",
     "paid once per node: replay time grows with the node count"),
    ("sweep.node_gap_profiler_us", "GPU: the node gap as the profiler draws it", "node_gap_us",
     "the profiler's reading; the model uses the unprofiled slope above, which is what a step pays"),
    ("sweep.stream_gap_us", "GPU: gap between two separately launched kernels", "stream_gap_us",
     "what replay removes on the GPU side, even with a full launch queue"),
    ("sweep.stream_gap_profiler_us", "GPU: the stream gap as the profiler draws it", "stream_gap_us",
     "the profiler's reading; the model uses the unprofiled slope above"),
    ("sweep.tax_us", "host: Python dispatch + launch of one kernel (x.add_(1))", "tax_us",
     "what replay removes on the CPU side, once per kernel"),
    ("sweep.driver_launch_us", "host: the launch alone, from C++ (no Python)", "driver_launch_us",
     "most of the per-kernel tax is Python and the dispatcher, not the driver"),
)
DRIVER_LAUNCH = ("host µs per launch of the C++ chain launcher (at::cuda::sleep kernels, no Python), the "
                 "median over the sweep's C++-launcher points")


def method(key: str) -> str:
    """The one line that says how constant (or figure) `key` was measured."""
    return DRIVER_LAUNCH if key == "driver_launch_us" else METHODS.get(key, "")


def replay_cost_rows(sweep_rec) -> list[dict]:
    """One row per replay cost: what it is, its value in `sweep_rec` ("(not measured in this
    recording)" where the calibration holds 0, "(not recorded)" without a recording), how it was
    measured, why it matters."""
    recs = {"sweep": sweep_rec}
    return [{"cost": what, "value": field_text(name, recs), "how it was measured": method(key),
             "why it matters": why} for name, what, key, why in ROWS]


def constant_rows(sweep_rec) -> list[dict]:
    """Every constant of the calibrated model: its symbol-free name, value and experiment."""
    recs = {"sweep": sweep_rec}
    return [{"constant": key, "value": field_text(f"sweep.{key}", recs), "how it was measured": line}
            for key, line in METHODS.items()]
