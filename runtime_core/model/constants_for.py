"""Constants of the calibrated model for a device: read from the simulator's parameters, or
measured on a GPU by `calibrate()`."""
from __future__ import annotations

from .formulas import TEXTBOOK, Constants


def constants_for(dev) -> Constants:
    """The model constants that describe `dev` (textbook ones if nothing is known)."""
    if dev.backend == "sim":
        p = dev.params
        return Constants(sync_us=p.sync_us, graph_launch_us=p.graph_launch_us, node_gap_us=p.node_gap_us,
                         kernel_floor_us=p.kernel_floor_us, static_copy=True,  # graph steps copy in
                         source="SimDevice parameters")
    cal = getattr(dev, "calibration", None)
    return cal() if callable(cal) else TEXTBOOK
