"""Fold the fresh-process re-checks and the capture-failure example into the external recording.

    python tests/gpu_runs/merge_external.py lessons/recordings/diagnose_external_h200.json \
        --failure tests/gpu_runs/results/capture_failure_h200_2026-12-01.json \
        --rechecks tests/gpu_runs/results/rechecks_2026-12-01/*.json

Each re-check is one `diagnose --model validation.external:NAME ... --no-compile --json --timeline`
answer, as a user gets it (its own process, its own live calibration); the recording keeps them
under "rechecks" with their own accuracy (accuracy.external_accuracy), beside the grid's.

`--repeat GRID.json[.gz]` keeps what another recording of the same grid *measured* (no profiles),
under "repeat": the same points measured again, so `accuracy` and page 7 can say how often the
measurement agrees with itself across two whole grids.
"""
import gzip
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from runtime_core.diagnose.accuracy import external_accuracy  # noqa: E402
from runtime_core.diagnose.record_external import snapshot  # noqa: E402
from runtime_core.recordings import store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("recording")
    ap.add_argument("--failure")
    ap.add_argument("--rechecks", nargs="*", default=[])
    ap.add_argument("--repeat")
    a = ap.parse_args()
    doc = store.load(a.recording, kind="diagnose").data
    if a.failure:
        p = json.loads(Path(a.failure).read_text())
        p.pop("profile", None)
        doc.setdefault("examples", {})["cannot_capture"] = p
    rows = []
    for f in a.rechecks:  # one answer per file, or a list of them (session11c.sh's rechecks.json)
        got = json.loads(Path(f).read_text())
        for d in got if isinstance(got, list) else [got]:
            if "error" in d:
                raise SystemExit(f"{f}: a re-check failed: {d['error']}")
            d.pop("timelines", None)
            rows.append(d)
    if rows:
        keep = {(r["model"], r["dtype"], r["batch"]) for r in rows}
        old = [r for r in doc.get("rechecks", {}).get("points", []) if (r["model"], r["dtype"], r["batch"]) not in keep]
        pts = old + rows
        doc["rechecks"] = {"how": "one `diagnose --model validation.external:NAME --no-compile --json` process per point",
                           "points": pts, "accuracy": external_accuracy(pts)}
    if a.repeat:
        doc["repeat"] = repeat_of(a.repeat)
    store.write(a.recording, snapshot(doc))
    print(json.dumps({"rechecks": len(doc.get("rechecks", {}).get("points", [])),
                      "repeat": len(doc.get("repeat", {}).get("points", [])), "examples": list(doc.get("examples", {}))}))


REPEAT_KEYS = ("model", "dtype", "batch", "seq", "eager_us", "graph_us", "measured_graph_speedup",
               "host_rounds_us", "host_dispatch_us", "timing_core", "timing")


def repeat_of(path: str) -> dict:
    """What a second recording of the grid measured, point by point, and how it was made."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        other = json.load(f)
    pts = [{k: p[k] for k in REPEAT_KEYS if k in p} for p in other["points"] if p.get("measured_graph_speedup")]
    cores = sorted({p.get("timing_core") or "middle" for p in other["points"]})
    m = other["meta"]
    return {"how": f"{m.get('protocol')}; timed on the {'/'.join(cores)} core; recorded {m.get('recorded_at')}",
            "protocol": m.get("protocol"), "recorded_at": m.get("recorded_at"), "file": Path(path).name, "points": pts}


if __name__ == "__main__":
    main()
