"""What a graph replay costs, from the calibrated constants of a sweep recording: the rows §4's
page shows next to its prose (through the same named figures the prose uses)."""
from __future__ import annotations

from .figures import field_text

ROWS = (
    ("sweep.graph_launch_us", "host: one cudaGraphLaunch", "what the CPU pays per replay, instead of one launch per kernel"),
    ("sweep.graph_upload_us", "host: extra on a graph's first replay", "the graph is uploaded to the device once"),
    ("sweep.fixed_us", "GPU: replay call → first node starts", "a graph is scheduled as a whole before it runs"),
    ("sweep.node_gap_us", "GPU: gap between two graph nodes", "paid once per node: replay time grows with the node count"),
    ("sweep.stream_gap_us", "GPU: gap between two separately launched kernels",
     "what replay removes on the GPU side, even with a full launch queue"),
    ("sweep.tax_us", "host: one cudaLaunchKernel", "what replay removes on the CPU side, once per kernel"),
)


def replay_cost_rows(sweep_rec) -> list[dict]:
    """One row per replay cost: what it is, its value in `sweep_rec` ("(not measured in this
    recording)" where the calibration holds 0, "(not recorded)" without a recording), why it matters."""
    recs = {"sweep": sweep_rec}
    return [{"cost": what, "value": field_text(name, recs), "why it matters": why} for name, what, why in ROWS]
