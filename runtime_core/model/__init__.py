"""The analytic model: closed-form predictions, the constants they use, and how to measure those.

    formulas.py   eager / streams / graph wall time; predict(Knobs, Constants) -> Result
    calibrate.py  calibrate(dev): measure a device's Constants; constants_for(dev)
    accuracy.py   the calibrated model against a recording: error per point, and why it misses
    cli.py        `python -m runtime_core model`
"""
from ..constants import TEXTBOOK, Constants
from .formulas import eager_wall_us, graph_wall_us, predict, streams_wall_us

__all__ = ["TEXTBOOK", "Constants", "predict", "eager_wall_us", "streams_wall_us", "graph_wall_us"]
