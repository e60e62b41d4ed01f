"""An interrupted sweep resumes to the same grid (issue 16, item 8): Ctrl-C (SIGINT) keeps the
points measured so far with one line and exit 130; a SIGKILL leaves the last atomic save; either
way `--resume` finishes to exactly the recording an uninterrupted run writes."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime_core.recordings.grid import key

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def sweep(out: Path, *extra) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "runtime_core", "sweep", "--backend", "sim", "--quick",
                             "--out", str(out), *extra], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def interrupt_after_first_save(out: Path, sig: int) -> tuple[int, str]:
    proc = sweep(out)
    deadline = time.monotonic() + 120
    while not out.exists():
        assert proc.poll() is None, "the sweep finished before its first save: nothing to interrupt"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def points(path: Path) -> dict:
    rec = json.loads(path.read_text())
    return rec, {key(p): p for p in rec["points"]}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole") / "whole.json"
    proc = sweep(out)
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    return points(out)


@pytest.mark.parametrize("sig", [pytest.param(signal.SIGINT, marks=pytest.mark.exhaustive), signal.SIGKILL],
                         ids=["SIGINT", "SIGKILL"])
def test_an_interrupted_sweep_resumes_to_the_same_grid(tmp_path, uninterrupted, sig):
    out = tmp_path / "cut.json"
    rc, err = interrupt_after_first_save(out, sig)
    partial, got = points(out)  # valid JSON, whatever the moment of the kill
    assert partial["meta"]["complete"] is False and 0 < len(got) < len(uninterrupted[1])
    if sig == signal.SIGINT:
        lines = err.strip().splitlines()
        assert rc == 130 and "Traceback" not in err, err
        assert lines[-1] == "runtime_core sweep: interrupted" and "run again with --resume" in lines[-2]
    else:
        assert rc == -signal.SIGKILL
    # mark one kept point: a resume that measured it again (or started over) would lose the mark
    kept = json.loads(out.read_text())
    marked = kept["points"][0]
    marked["wall_us_passes"] = [w + 0.5 for w in marked["wall_us_passes"]]
    out.write_text(json.dumps(kept))
    proc = sweep(out, "--resume")
    so, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    resumed, got = points(out)
    whole, want = uninterrupted
    assert resumed["meta"]["complete"] is True and got.keys() == want.keys()
    assert got[key(marked)]["wall_us"] == pytest.approx(want[key(marked)]["wall_us"] + 0.5, abs=1e-3)
    for k, p in want.items():  # the simulator is deterministic: the same numbers, point by point
        if k != key(marked):
            assert got[k]["wall_us"] == pytest.approx(p["wall_us"], rel=1e-6), k
        assert got[k]["driver_calls"] == p["driver_calls"], k
