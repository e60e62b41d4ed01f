"""Numbers read from a sweep's calibration experiments (meta.calibration_experiments): the graph
launch at each size, both readings of each gap, and the launch without Python (the sweep's
C++-launcher points). Each getter takes a sweep Recording and returns a number or None."""
from __future__ import annotations

import statistics

from ..model.calibrate import gap_readings


def _raws(rec) -> list[dict]:
    return rec.data["meta"].get("calibration_experiments") or []


def graph_launch_at(nodes: int):
    """Mean host µs of one cudaGraphLaunch of a `nodes`-node graph over the experiments."""
    def get(rec):
        xs = [g["replay_host_us"] for raw in _raws(rec) for g in raw["graph_launch"] if g["nodes"] == nodes]
        return statistics.fmean(xs) if xs else None
    return get


def gap_reading(gap: str, reading: str):
    """Mean over the experiments of one gap's reading: `wall_us` (what the model uses), `slope`,
    or `profiler_us`."""
    def get(rec):
        xs = [gap_readings(raw)[gap][reading] for raw in _raws(rec)]
        xs = [x for x in xs if x is not None]
        return statistics.fmean(xs) if xs else None
    return get


def driver_launch_us(rec):
    """Median host µs per launch of the C++ chain launcher (no Python) over the sweep's points."""
    xs = [p.tax_us - p.extra_tax_us for p in rec.points if p.launcher == "cpp"]
    return statistics.median(xs) if xs else None


def diagnose_variant_speedup(model: str, batch: int, variant: str):
    """A shipped diagnosis point's measured speedup of `variant` over eager (fp32)."""
    def get(rec):
        for p in rec.data.get("points", []):
            if p.get("model") == model and p.get("batch") == batch and p.get("dtype", "fp32") == "fp32":
                return p["variants"][variant]["speedup"]
        return None
    return get
