"""A point's judgement in printed figures that agree with it (runtime_core/diagnose/judged_text.py):
every recorded point's band and error, as the page prints them, read the way the verdict says."""
import json
import re
from pathlib import Path

import pytest

from runtime_core.diagnose.accuracy import TOLERANCE, point_targets
from runtime_core.diagnose.judged_text import band_figures, error_figure

RECORDINGS = Path(__file__).resolve().parents[1] / "lessons" / "recordings"


def _points():
    for name in ("diagnose_h200.json", "diagnose_external_h200.json"):
        doc = json.loads((RECORDINGS / name).read_text())
        for p in doc["points"]:
            if p.get("predicted_speedup_band") and p.get("measured_graph_speedup"):
                yield p


def test_a_band_that_misses_by_a_rounding_prints_the_digits_that_show_it():
    assert band_figures([3.46, 3.7804], 3.7812, False) == ("3.460", "3.780", "3.781")
    assert band_figures([3.46, 3.7804], 3.70, True) == ("3.46", "3.78", "3.70")
    lo, hi, _ = band_figures([1.011, 1.0149], 1.0146, True)
    assert lo != hi   # a band of some width never prints as one number
    lo, hi, _ = band_figures([1.0, 1.00001], 1.0, True)
    assert lo != hi
    lo, hi, m = band_figures([1.0, 1.5], 1.5000001, False)
    assert not (float(lo) <= float(m) <= float(hi))


def test_an_error_reads_on_the_side_of_the_tolerance_it_was_judged_on():
    assert error_figure(0.1504, 0.15, False) == "+15.04%"
    assert error_figure(-0.1496, 0.15, True) == "-15%"
    assert error_figure(0.02, 0.15, True) == "+2%" and error_figure(0.2, 0.15, None) == "+20%"
    assert error_figure(-0.002, 0.15, True) == "under 1%"   # never "-0%"
    assert error_figure(-0.005, 0.15, True) == "under 1%" and error_figure(0.005, 0.15, True) == "under 1%"
    # a miss by a hair past the tolerance: 1.70x predicted against 2.00x measured is -15.000000000000002%
    miss = 1.70 / 2.00 - 1
    assert abs(miss) > 0.15 and error_figure(miss, 0.15, False) == "just over 15%"


@pytest.mark.parametrize("p", list(_points()), ids=lambda p: f"{p['model']}-{p['dtype']}-{p['batch']}-{p.get('seq')}")
def test_every_recorded_point_prints_a_judgement_its_figures_agree_with(p):
    t = point_targets(p)
    lo, hi, meas = (float(x) for x in band_figures(p["predicted_speedup_band"], p["measured_graph_speedup"],
                                                     t["band_holds"]))
    assert (lo <= meas <= hi) == t["band_holds"]
    if t["within"] is not None:
        text = error_figure(t["error"], TOLERANCE, t["within"])
        if text.startswith("just over"):
            assert t["within"] is False
        else:
            shown = 0.0 if text == "under 1%" else abs(float(re.sub(r"[^0-9.]", "", text)))
            assert (shown <= TOLERANCE * 100) == t["within"]
