"""Issue 25 (not product code): the external grid recorded with the host's floor (host_floor.py),
in one process, resumable, in an order that reaches every network early: batch 1, then 16, 4 and
64, each over every network and dtype. Each point is diagnosed exactly as record_external's
one-process grid diagnoses it (diagnosis.diagnose: 60 H rounds over 15 s, predict, then the
steps' rounds over the next 15 s; the two runs of 2026-12-02 had 40 over 10 s).

    python3 tests/gpu_runs/floor_grid.py PATH BUDGET_S      (resumes PATH)
    python3 tests/gpu_runs/floor_grid.py --rechecks DIR BUDGET_S

--rechecks: the 12 fresh-process re-checks, fixed before the grid was complete: every network and
dtype at batch 4, each one child `diagnose --model NAME --no-compile --json --timeline` process as a
user runs it (record_external.fresh_point, which also checks that the point's prediction can be
recomputed from what it keeps), one file a point in DIR; a point already there is skipped.
"""
import json
import time
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from runtime_core.diagnose import record_external as rx  # noqa: E402
from runtime_core.diagnose.runners import get_runner  # noqa: E402

ORDER = (1, 16, 4, 64)


def ordered(points: list[dict]) -> list[dict]:
    return sorted(points, key=lambda g: (ORDER.index(g["batch"]) if g["batch"] in ORDER else len(ORDER),
                                         points.index(g)))


def main(path: str, budget_s: float) -> None:
    runner = get_runner("cuda")
    doc = rx.run_external(runner, Path(path), budget_s=budget_s, resume=Path(path).exists(),
                          only=ordered(rx.grid_points()))
    acc = doc.get("summary", {}).get("accuracy", {})
    print(f"floor grid: {len(doc['points'])} points, complete {doc['meta']['complete']}; {acc}")
    runner.close()


RECHECK_BATCH = 4


def rechecks(out_dir: str, budget_s: float) -> None:
    t0, out = time.monotonic(), Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runner = get_runner("cuda")
    for g in [g for g in rx.grid_points() if g["batch"] == RECHECK_BATCH]:
        path = out / f"{g['model'].split(':')[-1]}_{g['batch']}_{g['dtype']}.json"
        if path.exists():
            continue
        if time.monotonic() - t0 + rx.FRESH_POINT_S > budget_s:
            print(f"re-checks: budget of {budget_s:.0f} s reached; run again", flush=True)
            break
        p = rx.fresh_point(runner, g)
        path.write_text(json.dumps(p))
        print(f"re-checked {path.name}: predicted {p['predicted_graph_speedup']}, measured "
              f"{p['measured_graph_speedup']} in {p['process_wall_s']} s", flush=True)
    runner.close()


if __name__ == "__main__":
    if sys.argv[1] == "--rechecks":
        rechecks(sys.argv[2], float(sys.argv[3]))
    else:
        main(sys.argv[1], float(sys.argv[2]))
