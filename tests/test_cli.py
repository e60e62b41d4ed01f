"""The CLI contract of design.md: JSON keys, the checkpoint numbers, and one-line errors (exit 2)."""
import json
import subprocess
import re
import sys
from pathlib import Path

import pytest

from conftest import cli_here

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    p = subprocess.run([sys.executable, "-m", "runtime_core", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def run_here(capsys, *args):
    """`run`, in this process (conftest.cli_here), for the subcommands whose child process other
    tests run too (measure: test_cost.py; sweep and its --resume: test_sweep_interrupt.py; usage
    errors: the two kept as children below)."""
    p = cli_here(capsys, *args)
    return p.returncode, p.stdout, p.stderr


def test_model_eager_gives_the_seed_numbers():
    rc, out, _ = run("model", "--mode", "eager", "--n", "120", "--tax-us", "6", "--work-us", "2", "--json")
    d = json.loads(out)
    assert rc == 0
    assert (d["launch_overhead_us"], d["kernel_work_us"], d["driver_calls"]) == (720, 240, 120)
    assert {"wall_us", "graph_valid"} <= d.keys()


def test_model_graph_is_one_call_and_dynamic_invalidates_it():
    _, out, _ = run("model", "--mode", "graph", "--n", "120", "--tax-us", "6", "--work-us", "2", "--json")
    assert json.loads(out)["driver_calls"] == 1
    _, out, _ = run("model", "--mode", "graph", "--n", "120", "--tax-us", "6", "--work-us", "2", "--dynamic", "--json")
    d = json.loads(out)
    assert d["graph_valid"] is False and d["launch_overhead_us"] == 720


def test_measure_on_the_simulator_has_every_contract_key(capsys):
    rc, out, _ = run_here(capsys, "measure", "--mode", "streams", "--n", "50", "--work-us", "2", "--backend", "sim",
                          "--json")
    d = json.loads(out)
    assert rc == 0
    for key in ("launch_overhead_us", "wall_us", "kernel_work_us", "driver_calls", "graph_valid",
                "kernel_time_us", "backend", "device_name", "torch_version", "model"):
        assert key in d, key
    assert d["backend"] == "sim" and d["driver_calls"] == 50
    assert {"launch_overhead_us", "wall_us", "driver_calls", "graph_valid"} <= d["model"].keys()


BAD_ARGS_IN_A_CHILD = {("model", "--mode", "eager", "--n", "0", "--tax-us", "6", "--work-us", "2"), ("bogus",)}


@pytest.mark.parametrize("args", [
    ("model", "--mode", "eager", "--n", "0", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "-5", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "nan", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "1e12", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "ten", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "12", "--tax-us", "inf", "--work-us", "2"),
    ("model", "--mode", "warp", "--n", "12", "--tax-us", "6", "--work-us", "2"),
    ("measure", "--mode", "eager", "--n", "10", "--work-us", "-1", "--backend", "sim"),
    ("measure", "--mode", "eager", "--n", "10", "--work-us", "2", "--backend", "tpu"),
    ("sweep", "--out", "/nonexistent/x.json", "--refresh"),
    ("sweep", "--out", "x.json", "--refresh", "--retrace"),
    ("sweep", "--out", "", "--backend", "sim"),
    ("alloc", "--record", "", "--backend", "sim"),
    ("alloc", "--force", "--backend", "sim"),
    ("aot", "clear-cache", "--record", ""),
    ("diagnose", "--model", "fake-mlp", "--batch", "2", "--trace-out", ""),
    ("diagnose", "--model", "fake-mlp", "--sweep", "--trace-out", "t.json"),
    ("diagnose", "--model", "fake-mlp", "--plan", "uniform", "--from", ""),
    ("accuracy", "--recording", " "),
    ("accuracy", "--bounds", "--recording", str(ROOT / "lessons" / "recordings" / "diagnose_h200.json")),
    ("bogus",),
    # a flag the chosen setting would silently ignore is refused, not dropped
    ("model", "--mode", "eager", "--n", "10", "--work-us", "2", "--policy", "bucket"),
    ("model", "--mode", "graph", "--n", "10", "--work-us", "2", "--policy", "recapture"),
    ("model", "--mode", "streams", "--n", "10", "--work-us", "2", "--graph-input", "zero-copy"),
    ("model", "--mode", "graph", "--n", "10", "--work-us", "2", "--recording", "x.json"),
    ("measure", "--mode", "eager", "--n", "10", "--work-us", "2", "--backend", "sim", "--policy", "bucket"),
    ("measure", "--mode", "eager", "--n", "10", "--work-us", "2", "--backend", "sim", "--graph-input", "zero-copy"),
    ("measure", "--mode", "graph", "--n", "10", "--work-us", "2", "--backend", "sim", "--dynamic",
     "--graph-input", "zero-copy"),                     # a dynamic step is fed by its policy: not read
    ("measure", "--mode", "graph", "--n", "10", "--work-us", "2", "--backend", "sim", "--dynamic",
     "--policy", "bucket", "--graph-input", "zero-copy"),
    ("aot", "serving", "--no-measure"),
    ("aot", "timing", "--no-reduce-overhead"),
    ("diagnose", "--model", "decoder", "--plan", "zipf", "--sweep"),
    ("diagnose", "--model", "decoder", "--plan", "uniform", "--sizes", "1,2"),
    ("diagnose", "--model", "fake-cnn", "--batch", "4", "--from", "x.json", "--backend", "sim"),
    ("diagnose", "--model", "fake-mlp", "--batch", "2", "--budget-s", "5", "--backend", "sim"),
    # a partial recording is never thrown away by --resume --force, and "-" is not a file name
    ("sweep", "--out", "x.json", "--resume", "--force"),
    ("sweep", "--out", "-", "--backend", "sim", "--quick"),
    ("accuracy", "--recording", "-"),
    ("alloc", "--backend", "sim", "--record", "x.json/"),   # a folder's name: it wrote x.json
])
def test_bad_arguments_exit_2_with_one_line_and_no_traceback(args, capsys):
    rc, out, err = run(*args) if args in BAD_ARGS_IN_A_CHILD else run_here(capsys, *args)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == ""


def test_sweep_on_the_simulator_writes_a_recording_and_resumes(tmp_path, capsys):
    out = tmp_path / "rec.json"
    rc, _, _ = run_here(capsys, "sweep", "--out", str(out), "--backend", "sim", "--quick", "--budget-s", "1")
    assert rc == 0
    rc, so, _ = run_here(capsys, "sweep", "--out", str(out), "--backend", "sim", "--quick", "--resume")
    rec = json.loads(out.read_text())
    assert json.loads(so)["complete"] is True and len(rec["points"]) == 24
    for key in ("device_name", "torch_version", "recorded_at", "calibration"):
        assert key in rec["meta"]
    for p in rec["points"]:
        assert {"kernel_time_us", "model_wall_us", "driver_calls", "work_us", "extra_tax_us"} <= p.keys()


def test_an_unknown_model_on_the_simulator_is_unknown_not_a_gpu_model(capsys):
    rc, _, err = run_here(capsys, "diagnose", "--model", "bogus", "--batch", "2", "--backend", "sim")
    assert rc == 2 and "unknown model 'bogus'" in err and "needs a CUDA GPU" not in err
    rc, _, err = run_here(capsys, "diagnose", "--model", "encoder", "--batch", "2", "--backend", "sim")
    assert rc == 2 and "needs a CUDA GPU" in err


def test_resuming_a_full_sweep_with_quick_is_refused_and_loses_nothing(tmp_path, capsys):
    out = tmp_path / "rec.json"
    rc, _, _ = run_here(capsys, "sweep", "--out", str(out), "--backend", "sim", "--budget-s", "2")
    before = out.read_bytes()
    held = len(json.loads(before)["points"])
    assert rc == 0 and held > 24  # more than the whole quick grid
    rc, so, err = run_here(capsys, "sweep", "--out", str(out), "--backend", "sim", "--resume", "--quick")
    assert rc == 2 and so == "" and "without --quick" in err and len(err.strip().splitlines()) == 1
    assert out.read_bytes() == before


def test_bounds_json_is_strict_json_when_a_bound_has_no_points(tmp_path, capsys):
    out = tmp_path / "rec.json"
    run_here(capsys, "sweep", "--out", str(out), "--backend", "sim", "--quick")
    rc, so, _ = run_here(capsys, "accuracy", "--recording", str(out), "--bounds", "--json")
    rows = json.loads(so, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))["bounds"]
    empty = [r for r in rows if r["worst_at"] == "no points"]
    assert empty and all(r["value"] is None and r["ok"] is False for r in empty)
    assert rc == 1  # a bound nothing checked is not a pass


@pytest.mark.parametrize("args", [
    ("runtime_core.labs.compile_cache",),
    ("runtime_core.labs.compile_cache", "--record", "README.md"),
    ("runtime_core.labs.compile_cache", "--record", "x.json", "--build-fixture"),
    ("runtime_core.labs.compile_cache", "--build-fixture"),   # the committed fixture: only with --force
    ("runtime_core.labs.compile_cache", "--record", ""),
    ("runtime_core.labs.record", "--out", "README.md", "--backend", "sim"),
    ("runtime_core.labs.record", "--out", ""),
])
def test_the_module_scripts_refuse_bad_arguments_in_one_line_before_any_work(args):
    """The README's `python -m runtime_core.labs.*` surfaces keep the same contract as the
    subcommands: exit 2, one line, no traceback, and nothing written (README.md stays as it is)."""
    before = (ROOT / "README.md").read_bytes()
    p = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert (ROOT / "README.md").read_bytes() == before


def test_accuracy_names_what_tells_two_misses_at_one_mode_n_and_work_apart(capsys):
    """"graph N=1 work=2" missed at -21.3% and +21.5%: one under dynamic shapes, one plain. Each
    miss line names its extra tax, dynamic shapes and policy, or C++ launcher where it has one."""
    out = cli_here(capsys, "accuracy", "--recording", str(Path(__file__).resolve().parents[1]
                                                          / "lessons" / "recordings" / "sweep_h200.json")).stdout
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("miss")]
    assert any("dynamic/fallback" in ln for ln in lines) and any("tax+6" in ln for ln in lines)
    assert any("C++ launcher" in ln for ln in lines)
    keys = [ln.split("%")[0].rsplit(" ", 1)[0].split() for ln in lines]  # the setting before the error
    assert len({tuple(k) for k in keys}) == len(keys), "two miss lines read as the same setting"


def test_a_diagnose_miss_prints_its_error_to_a_tenth_so_it_never_reads_as_inside_the_tolerance(capsys):
    """The zoo's decoder at batch 64 missed at +15.3% and printed "(+15%)", which reads as inside ±15%."""
    out = cli_here(capsys, "accuracy", "--recording", str(Path(__file__).resolve().parents[1]
                                                          / "lessons" / "recordings" / "diagnose_h200.json")).stdout
    misses = [ln for ln in out.splitlines() if ln.strip().startswith("miss")]
    assert misses and all(ln.rstrip().endswith("%)") for ln in misses)
    assert any(ln.rstrip().endswith("(+15.3%)") for ln in misses)
    assert not any(ln.rstrip().endswith("(+15%)") or ln.rstrip().endswith("(-15%)") for ln in misses)


@pytest.mark.parametrize("flag, says", [(("--policy", "bucket"), "--dynamic"),
                                        (("--graph-input", "zero-copy"), "--mode graph"),
                                        (("--recording", "x.json"), "--constants calibrated")])
def test_an_ignored_flag_names_what_it_needs(flag, says, capsys):
    rc, _, err = run_here(capsys, "model", "--mode", "eager", "--n", "10", "--work-us", "2", *flag)
    assert rc == 2 and flag[0] in err and says in err


@pytest.mark.parametrize("args, says", [
    (("diagnose", "--model", "decoder", "--plan", "zipf", "--sweep"), "--sweep does nothing with --plan zipf"),
    (("diagnose", "--model", "decoder", "--plan", "uniform", "--zipf-exponent", "2"),
     "--zipf-exponent does nothing with --plan uniform"),
    (("diagnose", "--model", "decoder", "--plan", "uniform", "--zipf", "1.1"),   # a prefix, at the default value
     "--zipf-exponent does nothing with --plan uniform"),
    (("diagnose", "--model", "fake-mlp", "--batch", "2", "--record", "y.json", "--backend", "sim"),
     "--record writes the sweep's recording: add --sweep"),
    (("aot", "clear-cache", "--device", "cuda"), "--device does nothing for aot clear-cache"),
    (("sweep", "--out", "x.json", "--refresh", "--passes", "9"), "--passes does nothing with --refresh"),
    (("sweep", "--out", "x.json", "--retrace", "--budget-s", "3"), "--budget-s does nothing with --retrace"),
    (("bench", "--force"), "--force does nothing without --record"),
    (("node-costs", "--out", "x.json", "--stream", "--force"), "--force does nothing with --stream"),
])
def test_a_flag_the_command_would_ignore_is_named_with_what_ignores_it(args, says, capsys):
    rc, out, err = run_here(capsys, *args)
    assert rc == 2 and says in err and out == "", err


def test_the_stable_diagnose_call_with_batch_and_sweep_still_runs_and_names_the_unread_flag(capsys):
    """../shared/design.md lists `diagnose --model NAME --batch B ... [--sweep] ... --json` as a stable
    surface: --batch beside --sweep is not refused, only named on stderr as not read."""
    rc, out, err = run_here(capsys, "diagnose", "--model", "fake-mlp", "--batch", "2", "--sweep", "--backend", "sim",
                            "--json")
    assert rc == 0 and json.loads(out)["points"] and "--batch is not read with --sweep" in err


@pytest.mark.parametrize("flag", ["--tokens", "--tok"])
def test_aot_clear_cache_with_a_stray_flag_is_refused_and_the_cache_kept(flag, tmp_path, monkeypatch, capsys):
    """`aot clear-cache --tokens 50` (its default value) and `--tok 50` (argparse's prefix of it)
    emptied the cache: both are refused first, and the cache keeps its files."""
    from runtime_core.cache_paths import MARKER
    cache = tmp_path / "aot"
    cache.mkdir()
    (cache / MARKER).write_text("")
    (cache / "package.pt2").write_text("built")
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(cache))
    rc, out, err = run_here(capsys, "aot", "clear-cache", flag, "50")
    assert rc == 2 and "--tokens does nothing for aot clear-cache" in err and out == ""
    assert (cache / "package.pt2").read_text() == "built"
    rc, out, _ = run_here(capsys, "aot", "clear-cache")
    assert rc == 0 and not (cache / "package.pt2").exists()   # the same cache, cleared when asked plainly


def test_graph_flags_still_work_where_they_are_read(capsys):
    rc, out, _ = run_here(capsys, "model", "--mode", "graph", "--n", "10", "--work-us", "2", "--dynamic",
                          "--policy", "bucket", "--constants", "calibrated")
    assert rc == 0 and json.loads(out)["dynamic_policy"] == "bucket"
    rc, out, _ = run_here(capsys, "model", "--mode", "graph", "--n", "10", "--work-us", "2",
                          "--graph-input", "zero-copy", "--constants", "calibrated")
    assert rc == 0 and json.loads(out)["copy_calls"] == 0  # zero-copy: no input copy
    rc, out, _ = run_here(capsys, "measure", "--mode", "graph", "--n", "10", "--work-us", "2", "--backend", "sim",
                          "--dynamic", "--policy", "recapture")
    assert rc == 0 and json.loads(out)["dynamic_policy"] == "recapture"


def test_a_bare_call_lists_the_commands_and_exits_2(capsys):
    rc, out, err = run_here(capsys)
    assert rc == 2 and out == "" and "diagnose" in err and "accuracy" in err and "required" not in err


def test_the_committed_fixture_is_rebuilt_only_with_force():
    import torch
    p = subprocess.run([sys.executable, "-m", "runtime_core.labs.compile_cache", "--build-fixture"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    # on the torch its name says built it the refusal asks for --force; on another torch it names both
    assert ("add --force" in p.stderr) if torch.__version__.startswith("2.13.") else ("torch 2.13" in p.stderr)


def test_a_corrupt_recording_is_named_on_stderr_not_taken_for_a_missing_one(tmp_path, monkeypatch, capsys):
    """A truncated labs recording read as "no GPU recording of this lab ships", with nothing on
    stderr: the CLI names every file it skipped, and a missing recording names the folder looked in."""
    bad = tmp_path / "labs_h200.json"
    bad.write_text((ROOT / "lessons" / "recordings" / "labs_h200.json").read_text()[:5000])
    monkeypatch.setenv("RUNTIME_RECORDINGS_DIR", str(tmp_path))
    rc, out, err = run_here(capsys, "lab", "d2h_hazard", "--backend", "sim", "--json")
    assert rc == 0 and "skipped a recording: labs_h200.json: not JSON, maybe truncated" in err
    rc, out, err = run_here(capsys, "diagnose", "--model", "decoder", "--plan", "zipf")
    assert rc == 2 and f"no diagnose recording in {tmp_path}" in err
    monkeypatch.delenv("RUNTIME_RECORDINGS_DIR")
    from runtime_core.recordings import store
    store.scan("labs", tmp_path)   # a scan outside any command (a page, another test) meets the file
    rc, out, err = run_here(capsys, "model", "--mode", "eager", "--n", "10", "--work-us", "2", "--policy", "bucket")
    assert rc == 2 and len(err.strip().splitlines()) == 1   # an earlier command's skipped files are not named


@pytest.mark.parametrize("cmd", [("accuracy", "--recording"), ("model", "--constants", "calibrated", "--recording"),
                                 ("sweep", "--out")])
def test_a_path_no_file_system_holds_is_refused_in_one_line(cmd, capsys):
    """A 305-byte name raised OSError (File name too long) from path.exists(): a traceback."""
    rc, out, err = run_here(capsys, *cmd, "/tmp/" + "a" * 300 + ".json")
    assert rc == 2 and out == "" and "is 305 bytes; a file system allows 255" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_a_file_that_appears_during_a_recording_is_not_replaced(tmp_path):
    """`sweep --out F &`, then a file of the user's at F: the sweep's next write used to replace it
    in silence. A recorder replaces only a file --force (or --resume) let it, or one it wrote."""
    from runtime_core.errors import UsageError
    from runtime_core.recordings import store
    mine, theirs = tmp_path / "rec.json", tmp_path / "theirs.json"
    doc = {"meta": {}, "points": []}
    store.check_target(mine)
    store.write_own(mine, doc, check=False)        # its first write: the file was not there
    store.write_own(mine, doc, check=False)        # its own file, written again
    store.check_target(theirs)                     # checked before the run: not there yet
    theirs.write_text('{"my": "precious data"}')   # the user's file appears meanwhile
    with pytest.raises(UsageError, match="exists; pass --force"):
        store.write_own(theirs, doc, check=False)
    assert theirs.read_text() == '{"my": "precious data"}'
    store.check_target(theirs, force=True)         # --force: replacing it was asked for
    store.write_own(theirs, doc, check=False)
    assert json.loads(theirs.read_text()) == doc
    mine.unlink()
    store.check_target(mine)                       # a later run without --force, in the same process
    mine.write_text("another writer's")
    with pytest.raises(UsageError):                # what the first run wrote is not the second's to replace
        store.write_own(mine, doc, check=False)


def test_a_full_standard_output_is_one_line_and_its_own_status(monkeypatch, capsys):
    """`accuracy > /dev/full` raised OSError with a traceback and exit 1, which a script reads as
    "below target": it is one line on stderr and EX_IOERR (74)."""
    import errno
    import io
    from runtime_core.cli import EX_IOERR, main

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["model", "--mode", "eager", "--n", "1", "--work-us", "1"]) == EX_IOERR
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["runtime_core: error: could not write to standard output (No space left on device)"]


def test_a_recording_error_names_the_path_as_typed_and_a_gzip_says_so(tmp_path, capsys):
    """bert_base_4_bf16.json is in four folders: the error names the path given to --recording. A
    gzip-compressed recording is told to be unzipped, not "maybe truncated"."""
    import gzip
    folder = tmp_path / "rechecks_floor"
    folder.mkdir()
    (folder / "x.json").write_text('{"points": []}')
    rc, _, err = run_here(capsys, "accuracy", "--recording", str(folder / "x.json"))
    assert rc == 2 and f"--recording {folder / 'x.json'}: not a recording" in err, err
    (tmp_path / "g.json.gz").write_bytes(gzip.compress((ROOT / "lessons" / "recordings" / "diagnose_h200.json").read_bytes()))
    rc, _, err = run_here(capsys, "accuracy", "--recording", str(tmp_path / "g.json.gz"))
    assert rc == 2 and "gzip-compressed" in err and "truncated" not in err, err


def test_a_junk_environment_value_the_cli_reads_is_named_on_stderr(monkeypatch, capsys):
    monkeypatch.setenv("RUNTIME_RECORDINGS_DIR", "/nonexistent/recordings")
    monkeypatch.setenv("RUNTIME_CORE_PIN", "bogus")
    rc, out, err = run_here(capsys, "model", "--mode", "eager", "--n", "1", "--work-us", "1")
    assert rc == 0 and json.loads(out)
    assert "RUNTIME_RECORDINGS_DIR='/nonexistent/recordings' is not a folder" in err
    assert "RUNTIME_CORE_PIN='bogus'" in err and "Traceback" not in err


def test_printed_numbers_carry_no_float_noise(capsys):
    """The simulator's tax printed as 5.999999999999999 and a span's start as 18.6589999999851;
    no figure here is known to more than 12 digits, and the JSON says 6.0."""
    rc, out, _ = run_here(capsys, "measure", "--mode", "graph", "--n", "120", "--work-us", "2", "--backend", "sim",
                          "--json", "--timeline")
    doc = json.loads(out)
    assert rc == 0 and doc["tax_us"] == 6.0 and doc["model"]["tax_us"] == 6.0
    assert not re.search(r"\d\.\d*(9{6,}|0{6,})\d", out), re.search(r".{20}\d\.\d*(9{6,}|0{6,})\d.{5}", out)
    msg = run_here(capsys, "diagnose", "--model", "decoder", "--seq", "-1", "--batch", "1", "--backend", "sim")[2]
    assert "between 1 and 1000000, got -1" in msg, msg


@pytest.mark.parametrize("args, flag", [
    (("diagnose", "--model", "fake-mlp", "--plan", "zipf", "--from", "{f}"), "--from"),
    (("sweep", "--out", "{f}", "--resume", "--quick", "--backend", "sim"), "--out"),
    (("diagnose", "--sweep", "--record", "{f}", "--resume", "--quick"), "--record"),
])
def test_a_bad_recording_is_named_by_the_path_as_typed(tmp_path, args, flag):
    """A script review: these named the file by its base name alone ("rec.json: ..."), which is
    ambiguous where one name is in several folders."""
    bad = tmp_path / "sub" / "rec.json"
    bad.parent.mkdir()
    bad.write_text('{"meta": {}}')
    rc, out, err = run(*(a.format(f=bad) for a in args))
    assert rc == 2 and f"error: {flag} {bad}: meta.schema_version is missing" in err, err
    assert "Traceback" not in err and bad.read_text() == '{"meta": {}}'


def test_a_huge_core_range_a_blank_variant_list_and_accuracy_json_digits():
    """A script review: RUNTIME_CORE_CPUS=0-1000000000 built a billion-element set (a MemoryError
    traceback, or gigabytes) before any check; --variants ,,, ran the default variants in silence;
    accuracy --json printed 0.9073634204275535 where every --json prints 12 digits."""
    import os
    p = subprocess.run([sys.executable, "-m", "runtime_core", "model", "--mode", "eager", "--n", "1", "--work-us", "1"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, RUNTIME_CORE_CPUS="0-1000000000"))
    assert p.returncode == 2 and "names core 1000000000" in p.stderr and "Traceback" not in p.stderr
    rc, _, err = run("diagnose", "--model", "fake-mlp", "--batch", "2", "--variants", ",,,")
    assert rc == 2 and "names no variant" in err
    rc, out, _ = run("accuracy", "--json")
    floats = re.findall(r"-?\d+\.\d+(?:e-?\d+)?", out)
    assert floats and all(len(re.sub(r"[^0-9]", "", f.split("e")[0]).lstrip("0")) <= 12 for f in floats), floats


def test_a_path_with_a_line_break_is_refused_in_one_whole_line():
    """A script review: the error line was cut at the path's line break, losing the reason."""
    rc, _, err = run("accuracy", "--recording", "/tmp/a\nb.json")
    assert rc == 2 and "control character" in err and len(err.strip().splitlines()) == 1, err


def test_constants_recorded_on_the_simulator_is_refused_not_ignored():
    """A script review: `--constants recorded` on the simulator printed what `live` prints, exit 0."""
    rc, _, err = run("diagnose", "--model", "fake-mlp", "--batch", "1", "--constants", "recorded")
    assert rc == 2 and "--constants recorded" in err and "simulator" in err
