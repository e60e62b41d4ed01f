"""Calibration: the model's constants on any device, each from its own experiment.

`calibrate(dev)` runs the experiments of model/experiments.py (raw measurements, kept in a
recording's `meta.calibration_experiments`) and `derive(raw)` reads each constant off the one
experiment that measures it (constants.METHODS says how, in one line each; a recording keeps
those lines as `meta.calibration_methods`). No constant is a wall time minus other constants,
and the sweep never feeds the calibration: it is the model's test.

On the simulator the experiments recover the parameters the device was built with (the oracle
test, tests/test_calibration_oracle.py): that proves each experiment before a noisy GPU sees it.

Two constants are read off unprofiled slopes, because a profiler may see gaps a step does not
pay (or hide some it does): the node gap and the stream gap are the intercepts of the per-kernel
wall slope against profiled kernel durations at three durations. The profiler's own readings of
the same gaps are kept beside them (`gap_readings`), and the pages show both.
"""
from __future__ import annotations

import statistics
import weakref

from ..constants import METHODS, Constants
from ..knobs import Mode
from .experiments import run_experiments


def calibrate(dev, passes: int = 2) -> Constants:
    """Measure `dev`'s constants (a few seconds on an H200). The first measurements of a
    process run slow (lazy initialisation, clocks), so the last of `passes` passes is kept."""
    return calibrate_with_raw(dev, passes)[0]


def calibrate_with_raw(dev, passes: int = 2) -> tuple[Constants, dict]:
    """calibrate(), and the raw experiments the constants were read from."""
    raw = None
    for _ in range(max(1, passes)):
        raw = run_experiments(dev)
    return derive(raw, dev.name), raw


def derive(raw: dict, device_name: str = "a device") -> Constants:
    """The constants, each read off its own experiment in `raw` (run_experiments' output)."""
    sizes = [(g["nodes"], g["replay_host_us"], g["first_replay_host_us"]) for g in raw["graph_launch"]]
    one = min(sizes)
    launch_slope = _fit([n for n, _, _ in sizes], [h for _, h, _ in sizes])[0]
    upload_slope = _fit([n for n, _, _ in sizes], [f - h for _, h, f in sizes])[0]
    sync = raw["eager_sync"]
    consts = Constants(
        sync_us=_r(max(0.0, sync["sync_call_us"] - sync["kernel_us"])),
        graph_launch_us=_r(one[1]),
        graph_launch_per_node_us=_r(max(0.0, launch_slope), 5),
        graph_upload_us=_r(max(0.0, one[2] - one[1])),
        graph_upload_per_node_us=_r(max(0.0, upload_slope), 5),
        fixed_us=_r(max(0.0, raw["graph_trace"]["replay_to_first_node_us"] or 0.0)),
        node_gap_us=_r(max(0.0, gap_readings(raw)["node"]["wall_us"])),
        stream_gap_us=_r(max(0.0, gap_readings(raw)["stream"]["wall_us"])),
        kernel_floor_us=_r(raw["kernel_us"]["0"]),
        eager_floor_us=_r(raw["eager_floor"]["per_kernel_wall_us"]),
        static_copy=True, miss_runs=Mode.STREAMS.value,
        source=f"calibrate() on {device_name}; launch tax measured {raw['tax_us']:.2f} µs")
    return consts


def gap_readings(raw: dict) -> dict:
    """Both readings of each gap: the unprofiled slope's intercept (what the model uses), its
    slope against the profiled durations, and the profiler's own gap."""
    out = {}
    for name, rows, prof in (("node", raw["node_gap_wall"], raw["graph_trace"]["node_gaps_us"]),
                             ("stream", raw["stream_gap_wall"], raw["streams_trace"]["kernel_gaps_us"])):
        slope, intercept = _fit([r["kernel_us"] for r in rows], [r["per_kernel_us"] for r in rows])
        out[name] = {"wall_us": round(intercept, 4), "slope": round(slope, 4), "profiler_us": prof}
    return out


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and intercept of ys over xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return slope, my - slope * mx


def _r(x: float, digits: int = 3) -> float:
    return round(float(x), digits)


def methods() -> dict:
    """constant → the one line that says how it is measured (a recording's calibration_methods)."""
    return dict(METHODS)


def mean_constants(samples: list[dict]) -> tuple[Constants, float]:
    """Per-constant mean over calibration samples (each a Constants dict plus its `tax_us`),
    and the mean launch tax. A sweep spreads its samples over the run: the host drifts."""
    vals, blank = {}, Constants()
    for name in Constants.fields():  # a constant older samples lack keeps its textbook value
        xs = [c[name] for c in samples if c.get(name) is not None]
        digits = 5 if name.endswith("per_node_us") else 3
        vals[name] = round(statistics.fmean(xs), digits) if xs else getattr(blank, name)
    first = samples[0]
    src = first.get("source", "").split(";")[0] + f"; mean of {len(samples)} calibrations spread over the sweep"
    consts = Constants(**vals, static_copy=first.get("static_copy", True),
                       miss_runs=first.get("miss_runs", Mode.STREAMS.value), source=src)
    return consts, statistics.fmean(c["tax_us"] for c in samples)


_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def constants_for(dev) -> Constants:
    """The constants that describe `dev`: the ones it was built from (the simulator), else
    calibrate(dev), measured once per device."""
    known = dev.known_constants()
    if known is not None:
        return known
    if dev not in _CACHE:
        _CACHE[dev] = calibrate(dev)
    return _CACHE[dev]
