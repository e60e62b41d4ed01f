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
    return Machine(consts, dev.measure_tax(), consts.source, node_spread_us(dev.name))


def node_spread_us(device_name: str | None = None, simulated: bool = False) -> float:
    """δ of the band: the node-cost recording's spread (lessons/recordings/, kind node_costs) of
    this device where one exists, else of the best one (another GPU's kernels vary alike); 0.0
    on the simulator (its nodes cost exactly what its parameters say) or where none ships."""
    from ..recordings import store
    if simulated:
        return 0.0
    found = store.scan("node_costs")[0]
    same = [r for r in found if r.meta.device_name == device_name] or found
    rec = max(same, key=store.rank, default=None)
    return float(rec.data["derived"]["spread_us"]) if rec is not None else 0.0


def recorded_machine(rec=None) -> Machine:
    """The constants of the best sweep recording (lessons/recordings/), or of `rec`."""
    from ..recordings import store
    rec = rec or store.best("sweep")
    if rec is None or rec.meta.calibration is None or rec.meta.intrinsic_tax_us is None:
        raise UsageError("no sweep recording with a calibration in lessons/recordings/; "
                         "use --constants live on a GPU")
    return Machine(rec.meta.calibration, rec.meta.intrinsic_tax_us,
                   f"recording {rec.meta.file or 'sweep'} ({rec.meta.device_name})", node_spread_us(rec.meta.device_name))


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


def sample_of(m: Machine) -> dict:
    """One calibration sample as a recording stores it."""
    return dict(m.consts.as_dict(), tax_us=round(m.tax_us, 3))
