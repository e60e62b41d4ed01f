"""Issue 25 (not product code, no GPU): the six recordings of the external grid side by side, each
re-predicted with the code as it is now (record_external.snapshot, from each point's own profile and
H rounds). For every recording: how its eager step, graph step and H compare with the median of the
others at the same points, and how its measured speedup and its prediction compare with that
median (points where the median is ≥ 1.2x, as the speedup target counts).

It separates two things the single-recording targets mix: a machine that is faster or slower
than another session's (the recording's H moves with its eager step, so the prediction follows
it), and a point whose eager step changes state between its H rounds and its timed steps.

    python tests/gpu_runs/cross_grids.py        (a second here)
"""
import gzip
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from runtime_core.diagnose import record_external  # noqa: E402
from runtime_core.diagnose.accuracy import TOLERANCE, external_accuracy  # noqa: E402
from runtime_core.diagnose.predict import SPEEDUP_THRESHOLD  # noqa: E402

RESULTS = ROOT / "tests/gpu_runs/results"
GRIDS = {"fresh, 48 points": RESULTS / "diagnose_external_fresh3_h200.json",   # shipped until 2026-12-03
         "quickest core": RESULTS / "diagnose_external_pick_h200.json.gz",
         "A/B middle": RESULTS / "pin_ab/pin_middle.json.gz",
         "A/B fastest": RESULTS / "pin_ab/pin_fastest.json.gz",
         "fresh processes": RESULTS / "diagnose_external_fresh_h200.json",      # five H rounds back to back
         "fresh, 19 rounds": RESULTS / "diagnose_external_fresh2_h200.json"}    # 2026-12-02, partial


def load(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return record_external.snapshot(json.load(f))


def key(p: dict) -> tuple:
    return p["model"].split(":")[-1], p["dtype"], p["batch"]


def main() -> None:
    grids = {name: [p for p in load(path)["points"] if p.get("measured_graph_speedup")]
             for name, path in GRIDS.items()}
    by_point: dict[tuple, dict[str, dict]] = {}
    for name, points in grids.items():
        for p in points:
            by_point.setdefault(key(p), {})[name] = p
    print("against the median of the other recordings at the same point:")
    print(f"{'recording':16s} {'points':>6s} {'own speedups ±15%':>18s} {'eager':>6s} {'graph':>6s} {'H':>6s} "
          f"{'measured ±15%':>14s} {'predicted ±15%':>15s}")
    for name, points in grids.items():
        acc = external_accuracy(points)
        ratios = {f: [] for f in ("eager_us", "graph_us", "host_dispatch_us")}
        measured = predicted = eligible = 0
        for p in points:
            others = [q for g, q in by_point[key(p)].items() if g != name]
            if len(others) < 2:
                continue
            for f, r in ratios.items():
                r.append(p[f] / statistics.median(q[f] for q in others))
            ref = statistics.median(q["measured_graph_speedup"] for q in others)
            if ref >= SPEEDUP_THRESHOLD:
                eligible += 1
                measured += abs(p["measured_graph_speedup"] / ref - 1) <= TOLERANCE
                predicted += abs(p["predicted_graph_speedup"] / ref - 1) <= TOLERANCE
        med = {f: statistics.median(r) for f, r in ratios.items()}
        print(f"{name:16s} {len(points):6d} {acc['within']:>12d}/{acc['eligible']:<5d} {med['eager_us']:5.2f}x "
              f"{med['graph_us']:5.3f}x {med['host_dispatch_us']:5.2f}x {measured:>10d}/{eligible:<3d} "
              f"{predicted:>11d}/{eligible}")


if __name__ == "__main__":
    main()
