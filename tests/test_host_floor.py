"""The host's floor (runtime_core/diagnose/host_floor.py): H and every measured step are read as
the lowest of rounds spread over seconds; the band lets that floor move as far as it moved over
the H rounds; points recorded before the floor keep their own rule."""
import copy
import json
from pathlib import Path

import pytest

from runtime_core.diagnose import diagnosis, host_floor, timing

ROOT = Path(__file__).resolve().parents[1]


def test_the_floor_is_the_lowest_round():
    assert host_floor.floor_us([7.0, 5.0, 9.5, 5.5]) == 5.0


def test_the_floor_interval_is_how_far_the_floor_moved_between_the_halves_of_the_rounds():
    # first half's floor 100, second half's 110: the floor moved 10%, so the band allows ±10%
    lo, hi = host_floor.floor_interval([130.0, 100.0, 150.0, 110.0, 140.0, 160.0])
    assert (lo, hi) == pytest.approx((90.0, 110.0))
    assert host_floor.floor_interval([100.0, 120.0, 104.0, 130.0]) == pytest.approx((96.0, 104.0))
    assert host_floor.floor_interval([120.0, 100.0, 130.0, 100.0]) == (100.0, 100.0)  # both halves reach 100
    assert host_floor.floor_interval([100.0] * 8) == (100.0, 100.0)  # a virtual clock: no spread
    assert host_floor.floor_interval([42.0]) == (42.0, 42.0)


def test_a_point_timed_before_the_floor_keeps_its_own_rule():
    rounds = [float(x) for x in (9, 8, 7, 6, 5, 10, 11, 12, 13, 14)]
    old = {"host_rounds_us": rounds, "host_dispatch_us": 0.0}
    assert host_floor.statistic(old) == host_floor.RECENT
    assert diagnosis.point_h(old) == 12.0  # the median of the last five rounds
    assert diagnosis.h_interval(old) == diagnosis.band_rounds(rounds)
    new = dict(old, timing=host_floor.timing_fields(virtual=False))
    assert host_floor.statistic(new) == host_floor.FLOOR
    assert diagnosis.point_h(new) == 5.0
    assert diagnosis.h_interval(new) == host_floor.floor_interval(rounds)
    assert diagnosis.point_h({"host_dispatch_us": 77.0}) == 77.0  # no rounds at all (the oldest recordings)


def test_steps_per_round_stay_between_three_and_five():
    assert host_floor.round_reps(1_000.0) == 5
    assert host_floor.round_reps(12_500.0) == 4
    assert host_floor.round_reps(80_000.0) == 3


class _ScriptedDevice:
    """A device whose every synced step takes the next time from a script, µs; its host clock
    advances only by the steps."""

    def __init__(self, script):
        self.script, self.now, self.pending = list(script), 0.0, 0.0

    def synchronize(self):
        self.now += self.pending
        self.pending = 0.0

    def host_now_us(self):
        return self.now

    def step(self):
        self.pending = self.script.pop(0)


def test_a_variant_measures_its_floor_over_rounds_spread_in_time(monkeypatch):
    clock, starts = [0.0], []
    monkeypatch.setattr(host_floor.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(host_floor.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    # 4 rounds of (1 untimed + 3 timed) steps; the host is slow (≈200) in rounds 1 and 3, fast (≈100) in 2 and 4
    script = [0, 200, 210, 190, 0, 101, 99, 100, 0, 205, 195, 200, 0, 104, 100, 103]
    dev = _ScriptedDevice(script)

    def fn():
        starts.append(clock[0])
        dev.step()

    out = timing.step_times_us(dev, {"eager": fn}, blocks=4, reps=3, spread_s=8.0)["eager"]
    assert out["us"] == 100.0                       # the lowest round median, not the median 150
    assert out["rounds_us"] == [200.0, 100.0, 200.0, 103.0]
    assert out["median_us"] == pytest.approx(150.0, abs=51)
    assert out["samples"] == 12
    round_starts = starts[::4]
    assert round_starts == pytest.approx([0.0, 2.0, 4.0, 6.0])  # spread evenly over the 8 s


def test_on_a_virtual_clock_rounds_run_back_to_back(monkeypatch):
    waited = []
    monkeypatch.setattr(host_floor.time, "sleep", waited.append)
    dev = _ScriptedDevice([0, 50, 50])
    out = timing.step_times_us(dev, {"graph": dev.step}, blocks=1, reps=2)["graph"]
    assert out["us"] == 50.0 and not waited


def test_a_simulated_diagnosis_says_it_was_timed_by_the_floor():
    from runtime_core.diagnose.diagnosis import diagnose, prepare
    from runtime_core.diagnose.runners import get_runner
    from runtime_core.diagnose.spec import Spec
    runner = get_runner("sim")
    p = diagnose(runner, prepare(runner, Spec("fake-mlp", batch=1)), runner.machine())
    assert p["timing"]["statistic"] == host_floor.FLOOR and p["timing"]["host_window_s"] == 0.0
    assert p["host_dispatch_us"] == min(p["host_rounds_us"])
    eager = p["variants"]["eager"]
    assert eager["us"] == min(eager["rounds_us"]) and "median_us" in eager
    assert p["measured_graph_speedup"] == pytest.approx(eager["us"] / p["variants"]["our_graph"]["us"], rel=1e-3)


@pytest.mark.parametrize("path,rule", [("lessons/recordings/diagnose_external_h200.json", host_floor.FLOOR),
                                       ("tests/gpu_runs/results/diagnose_external_fresh3_h200.json", host_floor.RECENT)])
def test_the_shipped_external_grid_predicts_as_it_was_recorded(path, rule):
    """The shipped grid (timed with the floor) and one recorded before the floor: predicted again by
    the code now, their points' H are the ones they hold (each point keeps the rule it was timed
    with), and the shipped grid's predictions too (it is re-snapshotted whenever the model changes;
    the older results file keeps the predictions of its day)."""
    from runtime_core.diagnose import record_external
    from runtime_core.recordings import store
    doc = store.load(ROOT / path, kind="diagnose").data
    again = record_external.snapshot(copy.deepcopy(doc))
    for a, b in zip(doc["points"], again["points"]):
        assert host_floor.statistic(a) == rule
        assert b["host_dispatch_us"] == a["host_dispatch_us"]
        if path.startswith("lessons/"):
            assert b["predicted_graph_speedup"] == a["predicted_graph_speedup"]
            assert b["predicted_speedup_band"] == a["predicted_speedup_band"]


def test_the_floor_analysis_runs_on_the_shipped_probes_and_floor_grids():
    """tests/gpu_runs/floor_repeat.py, which host_floor's docstring and the README quote, runs on the
    probe recordings and the two floor-timed runs of the grid: six probe rows, both runs judged."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "tests/gpu_runs/floor_repeat.py"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert sum("floor 10s" in line for line in lines) == 6
    assert any(line.strip().startswith("both runs together") for line in lines)
    assert any("points both runs measured" in line for line in lines)
    assert any("holds it at" in line and "of 200" in line for line in lines)  # 10 s windows
    assert any("holds it at" in line and "of 140" in line for line in lines)  # 15 s windows


def test_a_floor_points_miss_is_explained_by_its_two_windows():
    from runtime_core.diagnose.accuracy import miss_reason
    p = {"predicted_eager_us": 14_000.0, "eager_us": 10_000.0, "predicted_graph_us": 1_000.0, "graph_us": 1_000.0,
         "host_dispatch_us": 13_000.0, "busy_us": 900.0, "gpu_ops": 300}
    assert "dispatch time H measured just before" in miss_reason(p)
    floor = miss_reason(dict(p, timing=host_floor.timing_fields(virtual=False)))
    assert floor.startswith("eager step off by +40%") and "floor" in floor and "timing windows" in floor


def test_a_grid_timed_by_another_rule_is_not_resumed(tmp_path):
    """A resumed file would mix two timing rules in one accuracy (medians, or the floor over other
    windows): the recorder refuses, in one line, and keeps the file."""
    from runtime_core.diagnose.record_external import run_external
    from runtime_core.diagnose.runners.sim import SimRunner
    from runtime_core.errors import UsageError
    from runtime_core.recordings import store
    grid = [{"model": "fake-mlp", "batch": b, "seq": None, "dtype": "fp32"} for b in (1, 64)]
    out = tmp_path / "ext.json"
    run_external(SimRunner(), out, 300, only=grid[:1])
    doc = store.load(out, kind="diagnose").data
    assert doc["points"][0]["timing"]["statistic"] == "floor"
    for older in (None, dict(doc["points"][0]["timing"], host_rounds=40)):  # medians; 40 rounds, not 60
        doc["points"][0]["timing"] = older
        if older is None:
            del doc["points"][0]["timing"]
        store.write(out, doc)
        with pytest.raises(UsageError, match="timed by another rule than this code's"):
            run_external(SimRunner(), out, 300, resume=True, only=grid)
        assert len(store.load(out, kind="diagnose").data["points"]) == 1  # the file is kept as it was


def test_a_simulated_diagnosis_says_how_many_rounds_it_timed():
    """The simulator's JSON said 60 H rounds and 60 measuring rounds while it listed 5 and ran 1."""
    from runtime_core.cli import main
    import contextlib
    import io
    import json
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["diagnose", "--model", "fake-mlp", "--batch", "1", "--backend", "sim", "--json"]) == 0
    p = json.loads(out.getvalue())
    assert p["timing"]["host_rounds"] == len(p["host_rounds_us"])
    assert p["timing"]["measure_rounds"] == 1 and p["timing"]["host_window_s"] == 0.0
