"""Issue 25 (not product code): the external grid recorded with the host's floor (host_floor.py),
in one process, resumable, in an order that reaches every network early: batch 1, then 16, 4 and
64, each over every network and dtype. Each point is diagnosed exactly as record_external's
one-process grid diagnoses it (diagnosis.diagnose: 60 H rounds over 15 s, predict, then the
steps' rounds over the next 15 s; the two runs of 2026-12-02 had 40 over 10 s).

    python3 tests/gpu_runs/floor_grid.py PATH BUDGET_S      (resumes PATH)
"""
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


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
