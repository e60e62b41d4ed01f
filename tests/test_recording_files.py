"""Typed, versioned recordings: every shipped file validates, and a broken one is a one-line error
(exit 2 in the CLI, a notice on the page), never a traceback or an empty page."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_here
from runtime_core.errors import RecordingError
from runtime_core.recordings import store
from runtime_core.recordings.types import KINDS, SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "lessons" / "recordings").glob("*.json"))


def _kind(path: Path) -> str:
    return json.loads(path.read_text())["meta"]["kind"]


def test_every_shipped_recording_carries_its_kind_and_schema_version():
    assert SHIPPED
    for path in SHIPPED:
        meta = json.loads(path.read_text())["meta"]
        assert meta["schema_version"] == SCHEMA_VERSION and meta["kind"] in KINDS, path.name
        assert store.load(path).meta.kind == meta["kind"]


def test_a_file_without_schema_version_is_one_line_naming_it(tmp_path):
    doc = json.loads((ROOT / "lessons/recordings/decoder_h200.json").read_text())
    doc["meta"].pop("schema_version")
    old = tmp_path / "decoder_old.json"
    old.write_text(json.dumps(doc))
    with pytest.raises(RecordingError, match=r"^decoder_old.json: meta.schema_version is missing"):
        store.load(old)


# What a class has dropped into lessons/recordings/: each case damages a copy of a shipped file.
def _truncate(text: str) -> str:
    return text[: len(text) // 2]


def _meta_as_string(doc: dict) -> dict:
    doc["meta"] = "H200"
    return doc


def _points_empty(doc: dict) -> dict:
    doc["points"] = []
    return doc


def _drop(section: str, key: str):
    """Remove `key` from the object at dotted `section` (the first item, for a list)."""
    def damage(doc: dict) -> dict:
        target = doc
        for part in section.split("."):
            target = target[part]
        (target[0] if isinstance(target, list) else target).pop(key)
        return doc
    damage.__name__ = f"no_{section.replace('.', '_')}_{key}"
    return damage


def _foreign(doc: dict) -> dict:
    return {"name": "a package.json", "version": "1.0"}


DAMAGE = {
    "sweep": [_meta_as_string, _points_empty, _drop("points", "wall_us"), _drop("meta", "calibration"),
              _drop("meta.calibration", "sync_us"), _foreign],
    "alloc": [_meta_as_string, _drop("labs.alloc", "allocators"), _drop("labs.alloc.allocators", "raw"),
              _foreign],
    "decoder": [_meta_as_string, _points_empty, _drop("points", "ms_per_token"), _drop("decoder", "config"),
                _foreign],
    "bench": [_meta_as_string, _drop("labs.bench", "median_step_us"), _drop("meta", "device_name"), _foreign],
    "diagnose": [_meta_as_string, _points_empty, _drop("points", "measured_graph_speedup"), _drop("meta", "calibration"),
                 _drop("meta.calibration", "sync_us"), _foreign],
    "labs": [_meta_as_string, _drop("labs.sync", "verdict"), _drop("labs.overlap", "signal"), _foreign],
    # ready for lessons/recordings/reduce_overhead_h200.json (aot reduce-overhead --record on a GPU)
    "reduce_overhead": [_meta_as_string, _drop("labs", "reduce_overhead"), _drop("labs.reduce_overhead", "verdict"),
                        _drop("labs.reduce_overhead", "errors"), _foreign],
    "aot": [_meta_as_string, _drop("aot", "device"), _drop("aot", "measured_at"), _foreign],
    "serving": [_meta_as_string, _drop("serving", "rows"), _drop("serving", "cpp"), _drop("serving.cpp", "batch"),
                _foreign],
    "compile_cache": [_meta_as_string, _drop("meta", "device_name"), _foreign],
    "node_costs": [_meta_as_string, _drop("rows", "family"), _drop("derived", "spread_us"), _foreign],
    "aot_timing": [_meta_as_string, _drop("timing", "serve_after_prebuild_s"), _drop("timing", "cores"),
                   _drop("timing.serving", "rows"), _foreign],
}
CASES = [(p, d) for p in SHIPPED for d in [None, *DAMAGE[_kind(p)]]]


def _damaged(tmp_path: Path, path: Path, damage) -> Path:
    out = tmp_path / path.name
    text = path.read_text()
    out.write_text(_truncate(text) if damage is None else json.dumps(damage(json.loads(text))))
    return out


@pytest.mark.parametrize("path,damage", CASES, ids=[f"{p.stem}-{getattr(d, '__name__', 'truncated')}" for p, d in CASES])
def test_a_damaged_recording_is_one_line_naming_the_file(tmp_path, path, damage):
    bad = _damaged(tmp_path, path, damage)
    with pytest.raises(RecordingError) as e:
        store.load(bad)
    msg = str(e.value)
    assert msg.startswith(f"{bad.name}: ") and "\n" not in msg and len(msg) < 300


@pytest.fixture
def no_jsonschema(monkeypatch):
    """This process as on the bare GPU machine: `import jsonschema` fails."""
    monkeypatch.setitem(sys.modules, "jsonschema", None)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_without_jsonschema_every_shipped_recording_still_loads(no_jsonschema, path):
    assert store.load(path).meta.kind == _kind(path)


@pytest.mark.parametrize("path,damage", CASES, ids=[f"{p.stem}-{getattr(d, '__name__', 'truncated')}" for p, d in CASES])
def test_without_jsonschema_a_damaged_recording_loads_or_is_one_line(no_jsonschema, tmp_path, path, damage):
    """Unvalidated, a damaged file may load; it never raises anything but a one-line RecordingError."""
    bad = _damaged(tmp_path, path, damage)
    try:
        store.load(bad)
    except RecordingError as e:
        assert str(e).startswith(f"{bad.name}: ") and "\n" not in str(e)


def test_without_jsonschema_a_recording_is_written_unvalidated_with_one_line(no_jsonschema, tmp_path, capsys):
    doc = json.loads((ROOT / "lessons/recordings/decoder_h200.json").read_text())
    doc["points"] = []  # the schema would refuse this; unvalidated, it is written
    out = store.write(tmp_path / "decoder.json", doc)
    err = capsys.readouterr().err.strip().splitlines()
    assert out.exists() and len(err) == 1 and "decoder.json: written unvalidated" in err[0]


def test_with_jsonschema_the_same_write_is_refused(tmp_path):
    doc = json.loads((ROOT / "lessons/recordings/decoder_h200.json").read_text())
    doc["points"] = []
    with pytest.raises(RecordingError):
        store.write(tmp_path / "decoder.json", doc)
    assert not (tmp_path / "decoder.json").exists()


def _sweep_refresh(bad: Path, capsys, child: bool) -> subprocess.CompletedProcess:
    """`python -m runtime_core sweep --refresh --out BAD`: as a child process where `child`, else
    conftest.cli_here in this process."""
    argv = ["sweep", "--refresh", "--out", str(bad)]
    if child:
        return subprocess.run([sys.executable, "-m", "runtime_core", *argv], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
    return cli_here(capsys, *argv)


# One case runs as a child process, the way a user runs it (and as the refusal of another kind below
# does); the others call the same main() in this process: a child each cost a second of imports.
REFRESH_IN_A_CHILD = ("sweep_h200", None)


@pytest.mark.parametrize("path,damage", [(p, d) for p, d in CASES if d in (None, _meta_as_string)],
                         ids=lambda x: getattr(x, "stem", getattr(x, "__name__", "truncated")))
def test_sweep_refresh_on_a_damaged_file_exits_2_with_one_line(tmp_path, path, damage, capsys):
    bad = _damaged(tmp_path, path, damage)
    p = _sweep_refresh(bad, capsys, child=(path.stem, damage) == REFRESH_IN_A_CHILD)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and bad.name in lines[0] and "Traceback" not in p.stderr


def test_refresh_refuses_a_recording_of_another_kind(tmp_path):
    alloc = tmp_path / "alloc.json"
    shutil.copy(ROOT / "lessons/recordings/alloc_h200.json", alloc)
    p = subprocess.run([sys.executable, "-m", "runtime_core", "sweep", "--refresh", "--out", str(alloc)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "expected a sweep recording" in p.stderr


def _sweep_doc(**meta) -> dict:
    doc = json.loads((ROOT / "lessons/recordings/sweep_h200.json").read_text())
    doc["meta"].update(meta)
    doc["points"] = doc["points"][:3]
    return doc


def test_a_partial_or_simulated_sweep_never_outranks_the_complete_gpu_one(tmp_path):
    shutil.copy(ROOT / "lessons/recordings/sweep_h200.json", tmp_path / "sweep_h200.json")
    (tmp_path / "sweep_partial.json").write_text(json.dumps(
        _sweep_doc(complete=False, recorded_at="2099-01-01T00:00:00Z")))
    (tmp_path / "sweep_sim.json").write_text(json.dumps(
        _sweep_doc(backend="sim", device_name="SimDevice (simulated)", recorded_at="2099-01-02T00:00:00Z")))
    (tmp_path / "broken.json").write_text('{"meta": "H200"}')
    found, skipped = store.scan("sweep", tmp_path)
    assert len(found) == 3 and len(skipped) == 1 and skipped[0].startswith("broken.json: meta")
    top = store.best("sweep", tmp_path)
    assert top.path.name == "sweep_h200.json" and top.meta.source == "recorded"
    sim = next(r for r in found if r.meta.simulated)
    assert sim.meta.source == "simulated" and "simulated" in sim.label()


def test_write_validates_and_replaces_atomically(tmp_path):
    target = tmp_path / "r.json"
    good = json.loads((ROOT / "lessons/recordings/bench_h200.json").read_text())
    store.write(target, good)
    with pytest.raises(RecordingError):
        store.write(target, _meta_as_string(json.loads(target.read_text())))
    assert store.load(target).meta.kind == "bench"  # the old file survives a refused write
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left behind


def test_every_page_skips_a_broken_recording_with_a_notice(tmp_path, monkeypatch):
    from conftest import open_page
    for path in SHIPPED:
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "sweep_zz_broken.json").write_text('{"meta": "H200", "points": []}')
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page("pages/6_Launch_overhead_killer.py")
    from pages.ui.safe_text import unescape
    notes = unescape(" ".join(w.value for w in at.sidebar.warning))  # the file name is escaped
    assert "sweep_zz_broken.json" in notes and "meta" in notes
    assert any("NVIDIA H200" in c.value for c in at.caption)  # the good recording is still shown


@pytest.mark.parametrize("text, says", [('{"a": 1}', "not a recording: it has no meta"),
                                        ("[]", "not a recording: its top level is an array"),
                                        ('{"meta": 3}', "meta: expected an object, got a number")])
def test_a_json_file_that_is_no_recording_says_so_in_json_words(tmp_path, text, says):
    bad = tmp_path / "x.json"
    bad.write_text(text)
    with pytest.raises(RecordingError, match=f"^x.json: {says}"):
        store.load(bad)
