"""Recordings that passed their schema but then crashed a command with a traceback (exit 1),
because the schema left out a field the code reads (a reviewer's list). Each is now refused where
it is loaded: exit 2 and one stderr line naming the file and the field (runtime_core/cli.py's
contract for bad input). A lab's recording is found by scanning the recordings folder, where a
file that fails to load is skipped with a one-line note naming it and the field, not an error.

Each case is a shipped recording (or, for `sweep --resume`, a quick simulated sweep made here)
copied to tmp_path with one field changed, run in this process (conftest.cli_here) as
`python -m runtime_core ...` runs it. The last tests check that the shipped files still work."""
import json
import shutil
from pathlib import Path

import pytest

from conftest import cli_here

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = ROOT / "lessons" / "recordings"
SWEEP = RECORDINGS / "sweep_h200.json"
DIAGNOSE = RECORDINGS / "diagnose_h200.json"
EXTERNAL = RECORDINGS / "diagnose_external_h200.json"
DELETE = object()  # as a value: remove the field


def _edit(doc: dict, field: str, value) -> dict:
    """Set (or, with DELETE, remove) the dotted `field` of `doc` (a number indexes a list, or
    names an object's key)."""
    *path, last = field.split(".")
    target = doc
    for k in path:
        target = target[int(k)] if isinstance(target, list) else target[k]
    last = int(last) if isinstance(target, list) else last
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return doc


def _broken(folder: Path, src: Path, field: str, value) -> Path:
    """A copy of recording `src` in `folder`, under its own name, with `field` changed."""
    doc = _edit(json.loads(src.read_text(encoding="utf-8")), field, value)
    out = folder / src.name
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out


def _one_line(result, *names: str) -> str:
    """The single stderr line of `result`, checked: no traceback, and every one of `names` in it."""
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1, result.stderr
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]


def _refused(capsys, path: Path, args: list, *names: str) -> str:
    """`args` (F standing for `path`) exits 2 with one stderr line naming the file and `names`."""
    r = cli_here(capsys, *[str(path) if a == "F" else a for a in args])
    assert r.returncode == 2, (r.returncode, r.stderr)
    return _one_line(r, path.name, *names)


ACCURACY = ["accuracy", "--recording", "F"]
MODEL = ["model", "--constants", "calibrated", "--recording", "F", "--mode", "graph", "--n", "10", "--work-us", "5",
         "--dynamic"]


# ---- 1. sweep recordings: meta.calibration, the calibration experiments, a point's passes --------
@pytest.mark.parametrize("value", ["bogus", None, 5], ids=["bogus", "null", "number"])
@pytest.mark.parametrize("args", [ACCURACY, MODEL], ids=["accuracy", "model"])
def test_a_sweep_whose_miss_runs_is_no_mode_is_refused(tmp_path, capsys, value, args):
    bad = _broken(tmp_path, SWEEP, "meta.calibration.miss_runs", value)
    _refused(capsys, bad, args, "meta.calibration.miss_runs")


@pytest.mark.parametrize("field,value", [("stream_gap_us", "x"), ("graph_launch_per_node_us", None),
                                         ("graph_upload_us", "x"), ("graph_upload_per_node_us", None),
                                         ("source", 5)])
@pytest.mark.parametrize("args", [ACCURACY, MODEL], ids=["accuracy", "model"])
def test_a_sweep_calibration_constant_of_the_wrong_type_is_refused(tmp_path, capsys, field, value, args):
    """Each was a TypeError in the model's formulas, or a value the command took silently (exit 0)."""
    bad = _broken(tmp_path, SWEEP, f"meta.calibration.{field}", value)
    _refused(capsys, bad, args, f"meta.calibration.{field}")


def test_a_sweep_calibration_sample_without_its_tax_is_refused(tmp_path, capsys):
    bad = _broken(tmp_path, SWEEP, "meta.calibration_passes.3.tax_us", DELETE)
    _refused(capsys, bad, ACCURACY, "meta.calibration_passes.3", "tax_us")


@pytest.mark.parametrize("field", ["eager_sync", "graph_launch", "eager_sync.sync_call_us", "kernel_us.0",
                                   "node_gap_wall"])
def test_refresh_refuses_a_calibration_experiment_it_cannot_derive_from(tmp_path, capsys, field):
    bad = _broken(tmp_path, SWEEP, f"meta.calibration_experiments.0.{field}", DELETE)
    before = bad.read_bytes()
    _refused(capsys, bad, ["sweep", "--out", "F", "--refresh"], "meta.calibration_experiments.0",
             field.split(".")[-1])
    assert bad.read_bytes() == before  # refused before anything was written


def test_refresh_refuses_a_point_without_its_passes(tmp_path, capsys):
    bad = _broken(tmp_path, SWEEP, "points.0.wall_us_passes", DELETE)
    _refused(capsys, bad, ["sweep", "--out", "F", "--refresh"], "points.0", "wall_us_passes")


def test_refresh_refuses_a_sweep_without_calibration_samples(tmp_path, capsys):
    """A sweep the recorder did not make may lack its samples (the schema allows it: only the mean
    constants are needed to show it), but --refresh recomputes from them: one line, not a KeyError."""
    bad = _broken(tmp_path, SWEEP, "meta.calibration_passes", DELETE)
    _refused(capsys, bad, ["sweep", "--out", "F", "--refresh"], "meta.calibration_passes")


@pytest.fixture(scope="module")
def quick_sim_sweep(tmp_path_factory) -> Path:
    """A complete quick sweep on the simulator (about a second), to resume on the simulator."""
    from runtime_core.cli import main
    out = tmp_path_factory.mktemp("sweep") / "quick_sim.json"
    assert main(["sweep", "--out", str(out), "--quick", "--backend", "sim"]) == 0
    return out


@pytest.mark.parametrize("field", ["points.0.wall_us_passes", "meta.calibration_passes"])
def test_resume_refuses_a_sweep_without_its_passes(tmp_path, capsys, quick_sim_sweep, field):
    bad = _broken(tmp_path, quick_sim_sweep, field, DELETE)
    _refused(capsys, bad, ["sweep", "--out", "F", "--resume", "--backend", "sim", "--quick"], field.split(".")[-1])


# ---- 2. diagnose recordings: calibration samples, re-checks, the repeat, profiles, the planner ---
DIAGNOSE_CASES = [
    (DIAGNOSE, "meta.calibration_passes", DELETE, ["meta", "calibration_passes"]),
    (DIAGNOSE, "meta.calibration_passes.0.tax_us", "x", ["meta.calibration_passes.0.tax_us"]),
    (EXTERNAL, "meta.calibration_passes", DELETE, ["meta", "calibration_passes"]),
    (EXTERNAL, "rechecks.points.2.eager_us", DELETE, ["rechecks.points.2", "eager_us"]),
    (EXTERNAL, "rechecks.points.2.machine", DELETE, ["rechecks.points.2", "machine"]),
    (EXTERNAL, "rechecks.points.2.machine.tax_us", "x", ["rechecks.points.2.machine.tax_us"]),
    (EXTERNAL, "repeat.points.0.dtype", DELETE, ["repeat.points.0", "dtype"]),
    (EXTERNAL, "repeat.points.0.eager_us", DELETE, ["repeat.points.0", "eager_us"]),
    (EXTERNAL, "points.2.profile.eager_ops.0", 1.5, ["points.2.profile.eager_ops.0"]),
    (EXTERNAL, "points.2.profile.eager_launch_us", 3, ["points.2.profile.eager_launch_us"]),
    (EXTERNAL, "points.2.capturable", False, ["points.2", "capture_failure"]),
]


@pytest.mark.parametrize("src,field,value,names", DIAGNOSE_CASES,
                         ids=[f"{src.stem}-{field}" for src, field, *_ in DIAGNOSE_CASES])
def test_accuracy_refuses_a_diagnose_recording_it_cannot_recompute(tmp_path, capsys, src, field, value, names):
    bad = _broken(tmp_path, src, field, value)
    _refused(capsys, bad, ACCURACY, *names)


def test_a_fresh_process_point_without_its_own_calibration_is_refused(tmp_path, capsys):
    """A recording of fresh processes predicts each point from that process's calibration."""
    bad = _broken(tmp_path, RECORDINGS / "diagnose_heldout_h100.json", "points.1.machine", DELETE)
    _refused(capsys, bad, ACCURACY, "points.1", "machine")


PLAN = ["diagnose", "--model", "decoder", "--plan", "zipf", "--from", "F"]


@pytest.mark.parametrize("field", ["graph_capture_s", "graph_us", "graph_pool_bytes"])
def test_the_planner_refuses_a_captured_point_with_no_graph_numbers(tmp_path, capsys, field):
    bad = _broken(tmp_path, DIAGNOSE, f"points.0.{field}", None)
    _refused(capsys, bad, PLAN, f"points.0.{field}")


def test_the_planner_names_a_point_whose_capture_failed(tmp_path, capsys):
    """A point that could not be captured legitimately has no capture time: the planner, which
    needs one at every size of the sweep, says which point in one line (diagnose/step_curve.py)."""
    doc = json.loads(DIAGNOSE.read_text(encoding="utf-8"))
    p = doc["points"][0]
    assert p["model"] == "decoder"
    p.update(capturable=False, capture_failure={"reason": "a synchronize inside the step"}, graph_capture_s=None)
    bad = tmp_path / DIAGNOSE.name
    bad.write_text(json.dumps(doc), encoding="utf-8")
    r = cli_here(capsys, *[str(bad) if a == "F" else a for a in PLAN])
    assert r.returncode == 2, (r.returncode, r.stderr)
    _one_line(r, "graph_capture_s", f"batch {p['batch']}", "capture failed")


# ---- 3. lab recordings: the fields a lab writes its verdict from again, on the simulator ---------
@pytest.mark.parametrize("lab,src,field", [
    ("reduce_overhead", "reduce_overhead_h200.json", "labs.reduce_overhead.fresh_inputs.calls"),
    ("reduce_overhead", "reduce_overhead_h200.json", "labs.reduce_overhead.new_shapes.per_batch.1.new_recordings"),
    ("reduce_overhead", "reduce_overhead_h200.json", "labs.reduce_overhead.new_shapes.warned_at_batch"),
    ("reduce_overhead", "reduce_overhead_h200.json", "labs.reduce_overhead.kernels.our_graph.kernel_mean_us"),
    ("d2h_hazard", "labs_h200.json", "labs.d2h_hazard.priority.high_us"),
    ("trees_lifecycle", "labs_h200.json", "labs.trees_lifecycle.skip_dynamic.skip.records"),
    ("trees_lifecycle", "labs_h200.json", "labs.trees_lifecycle.per_call.rows.2.record"),
    ("trees_lifecycle", "labs_h200.json", "labs.trees_lifecycle.rerecord.limit"),
])
def test_a_lab_recording_missing_a_number_its_verdict_quotes_is_skipped_in_one_line(
        tmp_path, capsys, monkeypatch, lab, src, field):
    """`lab NAME` on the simulator reads its lab from the recordings folder, where a file that
    fails to load is skipped and named in one stderr note (runtime_core/cli.py _say_skipped; the
    folder's other recordings still count), so the command exits 0: here the lab is then owed,
    since the broken file was the only one holding it."""
    r = _lab_from_broken(tmp_path, capsys, monkeypatch, lab, src, field, DELETE)
    *where, missing = field.split(".")
    line = _one_line(r, "skipped a recording", src, ".".join(where), repr(missing))
    assert line.endswith("is a required property"), line
    assert json.loads(r.stdout)["owed_recording"] is True


def _lab_from_broken(tmp_path, capsys, monkeypatch, lab: str, src: str, field: str, value):
    """`lab LAB --json` with a recordings folder holding only `src` with `field` changed: exit 0."""
    folder = tmp_path / "recordings"
    folder.mkdir()
    _broken(folder, RECORDINGS / src, field, value)
    monkeypatch.setenv("RUNTIME_RECORDINGS_DIR", str(folder))
    r = cli_here(capsys, "lab", lab, "--json")
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.parametrize("lab,src,field,value", [
    ("reduce_overhead", "reduce_overhead_h200.json", "labs.reduce_overhead.kept_output.bug.max_abs_err", None),
    ("reduce_overhead", "reduce_overhead_h200.json", "labs.reduce_overhead.skips.graph_partition", [True]),
    ("d2h_hazard", "labs_h200.json", "labs.d2h_hazard.priority.normal_us", "fast"),
    ("trees_lifecycle", "labs_h200.json", "labs.trees_lifecycle.overwritten.kept_across_calls.behaviour", "lost"),
])
def test_a_lab_recording_with_a_value_of_the_wrong_kind_is_skipped_in_one_line(
        tmp_path, capsys, monkeypatch, lab, src, field, value):
    r = _lab_from_broken(tmp_path, capsys, monkeypatch, lab, src, field, value)
    _one_line(r, "skipped a recording", src, field)
    assert json.loads(r.stdout)["owed_recording"] is True


# ---- what still loads ---------------------------------------------------------------------------
SHIPPED_DIAGNOSE = sorted(RECORDINGS.glob("diagnose*.json"))


@pytest.mark.parametrize("path", SHIPPED_DIAGNOSE, ids=lambda p: p.stem)
def test_every_shipped_diagnose_recording_is_still_judged(capsys, path):
    """The schemas only say what the code reads: a shipped recording still runs `accuracy` (its
    exit status is its targets' verdict, 0 or 1, never 2)."""
    r = cli_here(capsys, "accuracy", "--recording", str(path))
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("lab", ["reduce_overhead", "d2h_hazard", "trees_lifecycle"])
def test_the_shipped_lab_recordings_still_replay(capsys, lab):
    r = cli_here(capsys, "lab", lab, "--json")
    assert r.returncode == 0 and "skipped a recording" not in r.stderr, r.stderr
    out = json.loads(r.stdout)
    assert out["source"] == "recorded" and not out.get("owed_recording") and out["verdict"]


def test_a_shipped_sweep_still_refreshes(tmp_path, capsys):
    out = tmp_path / SWEEP.name
    shutil.copy(SWEEP, out)
    r = cli_here(capsys, "sweep", "--out", str(out), "--refresh")
    assert r.returncode == 0, r.stderr


def test_an_empty_list_of_calibration_samples_is_refused_in_one_line(tmp_path, capsys):
    """The schema lets a diagnose recording's calibration_passes be empty (a hostile copy with a
    free-text protocol must load); accuracy then raised ValueError from mean_machine."""
    bad = _broken(tmp_path, DIAGNOSE, "meta.calibration_passes", [])
    _refused(capsys, bad, ACCURACY, "meta.calibration_passes")
