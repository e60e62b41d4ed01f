"""The eager stream gap measured on kernels of our own making (model/stream_gaps.py), and how the
prediction uses it (diagnose/predict.py's γs and the band's δs): derived by hand from rows."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_core.constants import Constants
from runtime_core.diagnose.predict import Machine
from runtime_core.model.stream_gaps import derive_stream

ROOT = Path(__file__).resolve().parents[1]
C = Constants(sync_us=5.0, stream_gap_us=1.86)


def _rows(gaps, bound=True):
    return [{"name": f"k{i}", "family": "add", "gap_us": g, "gpu_bound": bound} for i, g in enumerate(gaps)]


def test_derive_stream_reads_the_median_gap_and_half_the_p10_p90_spread():
    d = derive_stream(_rows([0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.1, 1.2, 2.0, 3.0]))
    assert d == {"configs": 11, "median_gap_us": 0.8, "p10_us": 0.4, "p90_us": 2.0, "spread_us": 0.8}


def test_derive_stream_leaves_out_rows_the_host_could_not_keep_ahead_of_and_refuses_too_few():
    rows = _rows([0.5] * 5) + _rows([9.0] * 6, bound=False) + [{"name": "x", "family": "mm", "error": "boom"}]
    assert derive_stream(rows)["median_gap_us"] == 0.5
    with pytest.raises(ValueError, match="at least 5 GPU-bound configs, got 4"):
        derive_stream(rows[1:])


def test_a_node_costs_recording_with_a_stream_section_gives_the_device_its_gap_and_spread(tmp_path, monkeypatch):
    from runtime_core.diagnose.machine import with_node_costs
    src = ROOT / "lessons" / "recordings" / "node_costs_h200.json"
    doc = json.loads(src.read_text())
    doc["stream"] = {"recorded_at": "2026-12-03T00:00:00Z", "torch_version": "2.11.0", "k1": 20, "k2": 220,
                     "rows": [], "derived": {"configs": 40, "median_gap_us": 0.9, "p10_us": 0.5, "p90_us": 1.7,
                                             "spread_us": 0.6}}
    (tmp_path / "node_costs_h200.json").write_text(json.dumps(doc))
    monkeypatch.setenv("RUNTIME_RECORDINGS_DIR", str(tmp_path))
    m = with_node_costs(Machine(C, 9.0, "test"), doc["meta"]["device_name"])
    assert (m.eager_gap_us, m.stream_spread_us) == (0.9, 0.6)
    # without the section: the chain's gap and no spread
    doc.pop("stream")
    (tmp_path / "node_costs_h200.json").write_text(json.dumps(doc))
    m = with_node_costs(Machine(C, 9.0, "test"), doc["meta"]["device_name"])
    assert (m.eager_gap_us, m.stream_spread_us) == (1.86, 0.0)


def test_a_stream_section_that_breaks_the_schema_is_refused(tmp_path):
    from runtime_core.recordings import store
    from runtime_core.recordings.store import RecordingError
    doc = json.loads((ROOT / "lessons" / "recordings" / "node_costs_h200.json").read_text())
    doc["stream"] = {"recorded_at": "x", "torch_version": "y", "rows": [], "derived": {"configs": 2}}
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(RecordingError):
        store.load(tmp_path / "bad.json")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "runtime_core", "node-costs", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_node_costs_stream_says_what_it_needs_and_never_runs_with_mix(tmp_path):
    both = _cli("--mix", "--stream", "--out", str(tmp_path / "x.json"))
    assert both.returncode != 0 and "not both" in both.stderr and "Traceback" not in both.stderr
    try:
        import torch
        cuda = torch.cuda.is_available()
    except ImportError:
        cuda = False
    if not cuda:
        r = _cli("--stream", "--out", str(tmp_path / "x.json"))
        assert r.returncode != 0 and "needs a CUDA GPU" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.gpu
def test_stream_gaps_on_the_gpu_keep_the_host_behind_and_measure_a_small_gap(tmp_path):
    """A few configs on the real GPU: the sleep keeps every chain GPU-bound, and a kernel's gap
    beyond its profiled duration is a few µs at most."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    from runtime_core.model.node_costs import configs
    from runtime_core.model.stream_gaps import run_stream
    cfgs = [c for c in configs() if c[0] in ("add_ fp32 n=1024", "mm fp32 128x768x768", "layer_norm fp32 128x768")]
    rows = run_stream(cfgs)
    assert len(rows) == 3 and all(r.get("gpu_bound") for r in rows), rows
    assert all(-1.0 < r["gap_us"] < 5.0 for r in rows), rows
