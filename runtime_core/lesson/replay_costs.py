"""What a graph replay costs, from the calibrated constants of a sweep recording: the rows §4's
page shows next to its prose (through the same named figures the prose uses), each with the one
experiment that measured it (constants.METHODS), and the table of every constant for the widget's
model tab."""
from __future__ import annotations

from ..constants import METHODS
from .figures import field_text

# (figure, what it is, how it was measured in a few words, why it matters); constants.METHODS
# has each experiment in full (constant_rows, below)
ROWS = (
    ("sweep.graph_launch_us_at_1", "host: cudaGraphLaunch, 1 node", "replay loop, no sync",
     "paid once per replay, instead of once per kernel"),
    ("sweep.graph_launch_us_at_120", "host: cudaGraphLaunch, 120 nodes", "replay loop, no sync",
     "grows a little with the node count"),
    ("sweep.graph_launch_us_at_1000", "host: cudaGraphLaunch, 1000 nodes", "replay loop, no sync",
     "still one call"),
    ("sweep.graph_upload_us", "host: a first replay's extra, 1 node", "first against later replay call",
     "the upload, paid once per graph"),
    ("sweep.graph_upload_per_node_us", "host: a first replay's extra, per node", "fit over four graph sizes",
     "a capture storm pays it on every call"),
    ("sweep.fixed_us", "GPU: replay call → first node starts", "profiled replay",
     "a graph is scheduled as a whole before it runs"),
    ("sweep.node_gap_us", "GPU: gap between two graph nodes", "unprofiled slopes, three kernel lengths",
     "paid once per node"),
    ("sweep.node_gap_profiler_us", "GPU: the node gap, as profiled", "profiled replay",
     "the profiler's reading; the model uses the slopes"),
    ("sweep.stream_gap_us", "GPU: gap between separately launched kernels", "unprofiled slopes, three kernel lengths",
     "what replay removes on the GPU side"),
    ("sweep.stream_gap_profiler_us", "GPU: the stream gap, as profiled", "profiled streams step",
     "the profiler's reading; the model uses the slopes"),
    ("sweep.tax_us", "host: Python dispatch + launch of x.add_(1)", "400 launches, no sync",
     "what replay removes on the CPU side, per kernel"),
    ("sweep.driver_launch_us", "host: the launch alone, from C++", "the sweep's C++ launcher",
     "most of the tax is Python and the dispatcher"),
)
DRIVER_LAUNCH = ("host µs per launch of the C++ chain launcher (at::cuda::sleep kernels, no Python), the "
                 "median over the sweep's C++-launcher points")


def replay_cost_rows(sweep_rec) -> list[dict]:
    """One row per replay cost: what it is, its value in `sweep_rec` ("(not measured in this
    recording)" where the calibration holds 0, "(not recorded)" without a recording), how it was
    measured, why it matters."""
    recs = {"sweep": sweep_rec}
    return [{"cost": what, "value": _unbroken(field_text(name, recs)), "measured by": how,
             "why it matters": why} for name, what, how, why in ROWS]


def _unbroken(value: str) -> str:
    """A figure kept on one line in a narrow column ("1.10 µs", never "1.10" over "µs"); words
    such as "(not recorded)" still wrap."""
    number, _, unit = value.partition(" ")
    return f"{number}\u00a0{unit}" if unit and number.replace(".", "").replace(",", "").isdigit() else value


# each constant in words, for the widget's table (its code name, e.g. tax_us, in brackets)
NAMES = {
    "tax_us": "host: launch tax per kernel", "kernel_floor_us": "GPU: the smallest kernel's time",
    "eager_floor_us": "floor of one launch + sync round trip", "sync_us": "host: a synchronize round trip",
    "graph_launch_us": "host: cudaGraphLaunch", "graph_launch_per_node_us": "host: cudaGraphLaunch, per node",
    "graph_upload_us": "host: a first replay's extra", "graph_upload_per_node_us": "host: a first replay's extra, per node",
    "fixed_us": "GPU: replay call → first node starts", "node_gap_us": "GPU: gap between two graph nodes",
    "stream_gap_us": "GPU: gap between separately launched kernels", "driver_launch_us": "host: the launch alone, from C++",
}


def constant_rows(sweep_rec) -> list[dict]:
    """Every constant of the calibrated model: what it is in words (its code name beside), value and experiment."""
    recs = {"sweep": sweep_rec}
    methods = dict(METHODS, driver_launch_us=DRIVER_LAUNCH)
    return [{"constant": f"{NAMES.get(key, key)} ({key})", "value": _unbroken(field_text(f"sweep.{key}", recs)),
             "how it was measured": line} for key, line in methods.items()]
