"""Issue 25 (not product code, no GPU): what the graph step's residual (measured − predicted, µs)
goes with, over the shipped external grid's points, read off each point's stored eager profile
and its profiled replay. A place to look for the next experiment on kernels of our own making,
never a rule: nothing here feeds the prediction.

For each candidate count it prints its correlation with the residual over the captured points:
nodes; memset nodes (already priced by the mix's μ); kernel pairs whose shared-memory use differs
(zero against non-zero); consecutive nodes of different functions; kernels of ≥ 132 blocks (one
per SM or more). And how much of the residual the replay's own kernel durations explain
(the profiled replay's busy time − the captured eager step's).

    python tests/gpu_runs/graph_residual.py [RECORDING]   (default: the shipped external grid)
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "lessons/recordings/diagnose_external_h200.json"


def counts(ops: list) -> dict:
    pairs = list(zip(ops, ops[1:]))
    return {"nodes": len(ops),
            "memsets": sum(o[0] == "memset" for o in ops),
            "shared-memory switches": sum(a[0] == b[0] == "kernel" and bool(a[3]) != bool(b[3]) for a, b in pairs),
            "function switches": sum(a[4] != b[4] for a, b in pairs),
            "kernels of >= 132 blocks": sum(o[0] == "kernel" and (o[2] or 0) >= 132 for o in ops)}


def main(path: Path) -> None:
    points = [p for p in json.loads(path.read_text(encoding="utf-8"))["points"]
              if p.get("graph_us") and p.get("predicted_graph_us") and (p.get("profile") or {}).get("captured_ops")]
    resid = [p["graph_us"] - p["predicted_graph_us"] for p in points]
    rows = [counts(p["profile"]["captured_ops"]) for p in points]
    print(f"{len(points)} captured points; residual median {statistics.median(resid):+.1f} µs, "
          f"sum {sum(resid):+.0f} µs")
    for name in rows[0]:
        print(f"  correlation with {name:26s} {statistics.correlation([r[name] for r in rows], resid):+.2f}")
    longer = [p["graph_profile"]["busy_us"] - p["captured_busy_us"] for p in points
              if (p.get("graph_profile") or {}).get("busy_us") and p.get("captured_busy_us")]
    print(f"  the replay's kernels ran {sum(longer):+.0f} µs longer in all than the captured eager step's "
          f"({len(longer)} points), of the residual's {sum(resid):+.0f} µs")
    for dtype in ("fp32", "bf16"):
        r = [x for x, p in zip(resid, points) if p["dtype"] == dtype]
        print(f"  {dtype}: residual median {statistics.median(r):+.1f} µs over {len(r)} points")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
