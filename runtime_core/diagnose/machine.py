"""This machine's constants for a prediction: calibrated live on the GPU, or read from a sweep recording.

The constants are the chain's (model/calibrate.py): a synchronize, a graph launch and its
latency, the per-node gap, the kernel floor, and the launch tax t. They describe the machine,
not the model, which is why a diagnosis of any network can reuse them.
"""
from __future__ import annotations

from ..errors import UsageError
from .predict import Machine


def live_machine(dev, passes: int = 2) -> Machine:
    """calibrate() on `dev` now (about 2-4 s on an H200) and the launch tax of this moment."""
    from ..model.calibrate import calibrate
    consts = calibrate(dev, passes=passes)
    return with_node_costs(Machine(consts, dev.measure_tax(), consts.source), dev.name)


def _node_costs_recording(device_name: str | None):
    """The node-cost recording (lessons/recordings/, kind node_costs) of this device where one
    exists, else the best one (another GPU's kernels vary alike); None where none ships."""
    from ..recordings import store
    found = store.scan("node_costs")[0]
    same = [r for r in found if r.meta.device_name == device_name] or found
    return max(same, key=store.rank, default=None)


def node_costs_device(device_name: str | None) -> str | None:
    """The card whose node-cost recording a prediction for `device_name` reads (its own where one
    ships, else another's), or None where none ships."""
    rec = _node_costs_recording(device_name)
    return rec.meta.device_name if rec is not None else None


def node_spread_us(device_name: str | None = None, simulated: bool = False) -> float:
    """δ of the band: the node-cost recording's spread; 0.0 on the simulator (its nodes cost
    exactly what its parameters say) or where none ships."""
    rec = None if simulated else _node_costs_recording(device_name)
    return float(rec.data["derived"]["spread_us"]) if rec is not None else 0.0


def with_node_costs(m: Machine, device_name: str | None, simulated: bool = False) -> Machine:
    """`m` with what kernels of our own making say a graph node costs (predict.py's γn, μ and the
    band's δ), from the node-cost recording of `device_name`: its median extra per node, the
    mix section's memset extras by size where it has one, and the stream section's eager gap and
    its spread (γs and δs) where it has one. On the simulator, or where no node-cost
    recording ships, `m` as it is (γn is then the chain's γg)."""
    from dataclasses import replace
    rec = None if simulated else _node_costs_recording(device_name)
    if rec is None:
        return m
    mix = (rec.data.get("mix") or {}).get("derived") or {}
    table = tuple((int(b), float(us)) for b, us in mix.get("memset_extra_us", []))
    derived = rec.data["derived"]
    stream_doc = rec.data.get("stream") or {}
    stream = stream_doc.get("derived") or {}
    return replace(m, node_spread_us=float(derived["spread_us"]),
                   node_extra_us=float(derived["median_extra_us"]), memset_extra_us=table,
                   stream_gap_extra_us=float(stream["median_gap_us"]) if stream else None,
                   stream_spread_us=float(stream["spread_us"]) if stream else 0.0,
                   node_rel_spread=relative_spread(rec.data["rows"], "extra_us", derived["median_extra_us"]),
                   stream_rel_spread=(relative_spread([r for r in stream_doc.get("rows") or [] if r.get("gpu_bound")],
                                                      "gap_us", stream["median_gap_us"]) if stream else 0.0))


LONG_US = 5.0   # a kernel this long or longer varies by a share of its duration (relative_spread)
LONG_MIN = 5    # ... measured on at least this many such kernels, else no relative term


def relative_spread(rows: list[dict], key: str, median: float) -> float:
    """ρ: how far a long kernel's cost beside its neighbours moves, as a share of its own duration.

    Over the configs of the node-cost recording (or its stream section) whose eager-profiled
    duration is LONG_US or more: (`key` − `median`) / duration, and half its p10-p90 spread (as δ
    is half that of the absolute extras). On the H200's 57 configs δ is 0.19 µs over every kernel,
    but beside the median node a 7 µs softmax runs 0.9 µs faster in a graph than profiled and an
    8 µs layer norm 0.5 µs faster: past a few µs the deviation grows with the kernel, ±3.3% of it
    in a graph and ±3.5% in a stream (19 configs of 5 to 120 µs). 0.0 where fewer than LONG_MIN
    configs are that long."""
    from ..model.node_costs import spread_summary
    rel = [(r[key] - median) / r["eager_mean_us"] for r in rows
           if r.get(key) is not None and (r.get("eager_mean_us") or 0.0) >= LONG_US]
    return float(spread_summary(rel, "median")["spread_us"]) if len(rel) >= LONG_MIN else 0.0


def recorded_machine(rec=None) -> Machine:
    """The constants of the best sweep recording (lessons/recordings/), or of `rec`."""
    from ..recordings import store
    rec = rec or store.best("sweep")
    if rec is None or rec.meta.calibration is None or rec.meta.intrinsic_tax_us is None:
        raise UsageError("no sweep recording with a calibration in lessons/recordings/; "
                         "use --constants live on a GPU")
    return with_node_costs(Machine(rec.meta.calibration, rec.meta.intrinsic_tax_us,
                                   f"recording {rec.meta.file or 'sweep'} ({rec.meta.device_name})"),
                           rec.meta.device_name)


def mean_machine(samples: list[dict], node_spread: float = 0.0) -> Machine:
    """The mean of calibration samples (each Constants.as_dict() plus "tax_us"), per constant.

    The host drifts between a fast and a slow state for tens of seconds at a time, so a
    recording calibrates more than once and uses the mean: the expected cost over its run (the
    widget's sweep does the same, with the same function).
    """
    if not samples:
        raise ValueError("mean_machine needs at least one calibration sample")
    from ..model.calibrate import mean_constants
    consts, tax = mean_constants(samples)
    return Machine(consts, tax, consts.source, node_spread)


def recording_machine(samples: list[dict], meta: dict, node_spread: float = 0.0) -> Machine:
    """mean_machine of a recording's calibration samples, with the node costs of the device its
    `meta` names (none for a simulated recording: its nodes cost what its parameters say)."""
    from ..errors import RecordingError
    from ..recordings.types import simulated_backend
    if not samples:  # the schema allows an empty list (a hostile copy's free-text protocol must load)
        raise RecordingError("meta.calibration_passes is empty: a recording's predictions are made from "
                             "its calibration samples, and it has none")
    return with_node_costs(mean_machine(samples, node_spread), meta.get("device_name"),
                           simulated_backend(meta.get("backend")))


def sample_of(m: Machine) -> dict:
    """One calibration sample as a recording stores it."""
    return dict(m.consts.as_dict(), tax_us=round(m.tax_us, 3))
