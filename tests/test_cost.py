"""Every request has a cost bound: measure, bench and the fusion lab are priced before they run
and refused in one line past the limit; big timelines are thinned, and say so."""
import gc
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime_core.engine import cost
from runtime_core.engine.cost import CudaCostModel, check_bench, cost_model, check_measure, estimate_measure
from runtime_core.engine.measure import measure
from runtime_core.engine.sim.device import SimDevice
from runtime_core.engine.timeline_limit import MAX_SPANS, decimate
from runtime_core.errors import UsageError
from runtime_core.knobs import LIMITS, Knobs

ROOT = Path(__file__).resolve().parents[1]
SIM = cost_model(SimDevice())      # each backend prices its own requests (cost.cost_model)
MODELS = {"sim": SIM, "cuda": CudaCostModel()}  # a GPU's model needs no GPU to price a request


def cli(*args, timeout=120):
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "runtime_core", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=timeout)
    return p, time.perf_counter() - t0


def test_a_request_past_the_limit_is_refused_at_once_in_one_line(monkeypatch, capsys):
    """The CLI's refusal, in process (on the simulator every request within measure's ranges now
    fits the limit: the lowest limit makes one that does not)."""
    from runtime_core.cli import main
    monkeypatch.setattr(cost, "MAX_WALL_S", 0.5)
    t0 = time.perf_counter()
    rc = main(["measure", "--backend", "sim", "--mode", "eager", "--n", "20000", "--work-us", "10000"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("runtime_core measure: error: measure would take about")
    assert "the limit is 0.5 s" in lines[0], lines[0]
    assert time.perf_counter() - t0 < 5  # priced, not run


def test_the_688_second_request_runs_in_seconds_now_and_is_priced_so():
    """`measure --backend sim --mode eager --n 20000 --work-us 10000` ran 688 s before the
    simulator ran chains in bulk; the estimate still charged one kernel effect per launch and
    refused it at 13 minutes. It runs in about a second, and its price says about that."""
    p, _ = cli("measure", "--backend", "sim", "--mode", "eager", "--n", "20000", "--work-us", "10000")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["n"] == 20000
    assert estimate_measure(Knobs("eager", 20000, 10000.0), SIM).seconds < 10


def test_the_suggested_bounds_fit_and_one_more_does_not():
    k = Knobs("eager", 20000, 10000.0)
    gpu = MODELS["cuda"]  # priced without a GPU; the simulator's own requests all fit
    with pytest.raises(UsageError) as e:
        check_measure(k, gpu)
    n_fit = int(re.search(r"--n to (\d+)", str(e.value)).group(1))
    work_fit = float(re.search(r"--work-us to ([\d.]+)", str(e.value)).group(1))
    assert estimate_measure(k.replace(n=n_fit), gpu).seconds <= cost.MAX_WALL_S
    assert estimate_measure(k.replace(n=n_fit + 1), gpu).seconds > cost.MAX_WALL_S
    assert estimate_measure(k.replace(work_us=work_fit), gpu).seconds <= cost.MAX_WALL_S


@pytest.mark.parametrize("k", [
    Knobs("streams", 3000, 2.0),
    Knobs("eager", 40, 10000.0),
    Knobs("graph", 1000, 2.0, dynamic=True, policy="recapture"),
    Knobs("graph", 30, 5000.0, dynamic=True, policy="bucket"),
    Knobs("eager", 20000, 10000.0),
    Knobs("streams", 300, 1000.0),
    Knobs("graph", 2000, 1000.0),
    Knobs("graph", 3000, 2000.0, dynamic=True),
], ids=["streams-3000", "eager-40-big", "recapture", "bucket-big", "eager-688s", "streams-big", "graph-big",
        "fallback-big"])
def test_the_estimate_is_conservative_on_the_simulator(k):
    """Measured: the estimate was 1.9-8.7x the real time on the 2-core development machine (and
    1,000x at eager N=20,000 of 10 ms, before it priced a run's effects in bulk: 1.5x now)."""
    measure(SimDevice(), k.replace(n=10))  # this mode's imports and first-touch paid outside the timing
    # CPU time of this thread: the simulator measures on the calling thread, and neither other
    # processes nor threads an earlier test left running in this process (a CI run once charged
    # 0.48 s to a 0.12 s measure that way, with process_time) count against the estimate
    # nor a collection of the garbage 1,300 earlier tests left, which is not the measure's cost: a
    # fresh-clone CI run (2026-11-30) charged 0.50 s to a measure that takes 0.1-0.2 s here, late in
    # the session, where a full gc pass is the likeliest cause (not proven)
    gc.collect()
    gc.disable()
    try:
        t0 = time.thread_time()
        measure(SimDevice(), k)
        actual_s = time.thread_time() - t0
    finally:
        gc.enable()
    est = estimate_measure(k, SIM).seconds
    assert actual_s <= est, (actual_s, est)
    assert est <= 12 * actual_s + 0.5, (actual_s, est)  # conservative, not absurd


@pytest.mark.parametrize("backend", ["sim", "cuda"])
def test_nothing_the_widget_can_reach_is_refused(backend):
    w = LIMITS["widget"]
    for mode, dynamic, policy in (("eager", False, "fallback"), ("streams", False, "fallback"),
                                  ("graph", False, "fallback"), ("graph", True, "fallback"),
                                  ("graph", True, "recapture"), ("graph", True, "bucket")):
        k = Knobs(mode, int(w["n"].hi), w["work_us"].hi, extra_tax_us=w["extra_tax_us"].hi if backend == "cuda" else 0.0,
                  dynamic=dynamic, policy=policy)
        assert estimate_measure(k, MODELS[backend]).seconds < cost.MAX_WALL_S, k


def test_a_gpu_request_is_priced_by_device_time():
    """No GPU is needed to price one: N=20000 blocking launches of 10 ms is over half an hour."""
    assert estimate_measure(Knobs("eager", 20000, 10000.0), MODELS["cuda"]).seconds > 3600
    assert estimate_measure(Knobs("graph", 120, 2.0), MODELS["cuda"]).seconds < 15


def test_bench_is_priced_before_it_needs_the_gpu():
    check_bench(120, 2.0)
    with pytest.raises(UsageError, match=r"bench would take about .* lower --n to \d+"):
        check_bench(5000, 1000.0)


def test_the_fusion_lab_refuses_big_work_before_running(monkeypatch):
    from runtime_core.labs import run_lab
    monkeypatch.setattr(cost, "MAX_WALL_S", 5.0)  # it runs in about 10 s on the simulator now
    t0 = time.perf_counter()
    with pytest.raises(UsageError, match="the fusion lab would take about .* lower n or work_us"):
        run_lab("fusion", "sim", n=20000, work_us=2000.0)
    assert time.perf_counter() - t0 < 2


def test_the_widget_page_shows_a_refusal_instead_of_running(monkeypatch):
    from conftest import open_page
    monkeypatch.setattr(cost, "MAX_WALL_S", 1e-6)  # every setting is now "too big"
    at = open_page("pages/6_Launch_overhead_killer.py")
    assert any("this setting would take about" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.metric  # nothing was measured


# ---- timelines ------------------------------------------------------------------------------
def _spans(n):
    rows = [{"lane": "cpu", "kind": "launch", "name": "l", "start_us": 6.0 * i, "end_us": 6.0 * i + 6} for i in range(n)]
    rows += [{"lane": "gpu", "kind": "kernel", "name": "k", "start_us": 6.0 * i + 6, "end_us": 6.0 * i + 8} for i in range(n)]
    rows.append({"lane": "cpu", "kind": "sync", "name": "s", "start_us": 6.0 * n, "end_us": 6.0 * n + 9})
    return rows


def test_a_short_timeline_is_untouched():
    rows = _spans(100)
    assert decimate(rows) == (rows, None)


@pytest.mark.parametrize("limit", [2000, 50, 3])
def test_a_long_timeline_keeps_at_most_the_limit_rare_kinds_and_the_end(limit):
    rows = _spans(20_000)
    kept, info = decimate(rows, limit)
    assert len(kept) <= limit and info["kept"] == len(kept) and info["of"] == len(rows)
    assert kept == sorted(kept, key=lambda s: s["start_us"])
    if limit >= 50:
        assert any(s["kind"] == "sync" for s in kept)  # the one sync survives
        assert max(s["end_us"] for s in kept) == max(s["end_us"] for s in rows)  # the step's end shows
        starts = [s["start_us"] for s in kept if s["kind"] == "launch"]
        assert starts[0] == 0.0 and max(b - a for a, b in zip(starts, starts[1:])) <= 6.0 * 20_000 / (limit / 4)


def test_measure_timeline_prints_a_bounded_timeline_and_says_so():
    p, _ = cli("measure", "--backend", "sim", "--mode", "streams", "--n", "20000", "--work-us", "2",
               "--timeline")
    assert p.returncode == 0, p.stderr
    assert len(p.stdout) < 600_000  # was 5.8 MB
    out = json.loads(p.stdout)
    assert len(out["timeline"]) <= MAX_SPANS
    assert out["timeline_truncated"]["of"] == 2 * 20_000 + 1 and out["timeline_truncated"]["kept"] == len(out["timeline"])
    assert out["driver_calls"] == 20_000  # the numbers are from the whole step


def test_the_decoder_token_loops_are_priced_and_the_defaults_fit():
    from runtime_core.engine.cost import check_decoder
    check_decoder(50, 8)  # the documented `aot decoder --json --record ...`
    check_decoder(50, 0, reduce_overhead=False, what="aot reduce-overhead")
    with pytest.raises(UsageError, match=r"aot decoder would take about .*lower --tokens to \d+"):
        check_decoder(10_000, 100)
    with pytest.raises(UsageError, match=r"aot reduce-overhead would take about .*--tokens to \d+"):
        check_decoder(10_000, 0, reduce_overhead=False, what="aot reduce-overhead")
