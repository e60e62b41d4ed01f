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
    return Machine(consts, dev.measure_tax(), consts.source)


def recorded_machine(rec=None) -> Machine:
    """The constants of the best sweep recording (lessons/recordings/), or of `rec`."""
    from ..recordings import store
    rec = rec or store.best("sweep")
    if rec is None or rec.meta.calibration is None or rec.meta.intrinsic_tax_us is None:
        raise UsageError("no sweep recording with a calibration in lessons/recordings/; "
                         "use --constants live on a GPU")
    return Machine(rec.meta.calibration, rec.meta.intrinsic_tax_us,
                   f"recording {rec.meta.file or 'sweep'} ({rec.meta.device_name})")


def mean_machine(samples: list[dict]) -> Machine:
    """The mean of calibration samples (each Constants.as_dict() plus "tax_us"), per constant.

    The host drifts between a fast and a slow state for tens of seconds at a time, so a
    recording calibrates more than once and uses the mean: the expected cost over its run (the
    widget's sweep does the same, with the same function).
    """
    if not samples:
        raise ValueError("mean_machine needs at least one calibration sample")
    from ..model.calibrate import mean_constants
    consts, tax = mean_constants(samples)
    return Machine(consts, tax, consts.source)


def sample_of(m: Machine) -> dict:
    """One calibration sample as a recording stores it."""
    return dict(m.consts.as_dict(), tax_us=round(m.tax_us, 3))
