"""Issue 25 (not product code): the launch times of every external grid point, profiled on their
own, and the fresh grid re-predicted with them.

The eager queue (predict.eager_queue_us) now readies each operation when the profiled step's launch
call for it returned, as a share of that step's dispatch (diagnosis.op_ready). The grids recorded
before 2026-12-03 (fourth session) kept no launch times. Where Python sits in a network's step is a
property of its code, not of one process, so a separate profile of the same configuration gives
the shares; each point keeps its own H, op durations and measurements.

    python3 tests/gpu_runs/launch_shares.py record OUT.json BUDGET_S    (GPU; resumable, ~5 s a point)
    python tests/gpu_runs/launch_shares.py apply GRID.json SHARES.json OUT.json   (no GPU)

`apply` uses a point's shares only where the separate profile ran the same operations (count and
kinds, in order); it writes OUT.json (never GRID.json) and prints the accuracy lines of both.
"""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _key(g: dict) -> str:
    return f"{g['model']}|{g['dtype']}|b={g['batch']}|seq={g.get('seq')}"


def _kinds(rows: list) -> str:
    return "".join((r[0] or "?")[0] for r in rows)


def record(out: str, budget_s: float) -> None:
    from floor_grid import ordered
    from runtime_core.diagnose import record_external as rx
    from runtime_core.diagnose.diagnosis import prepare
    from runtime_core.diagnose.runners import get_runner
    from runtime_core.diagnose.spec import Spec
    path = Path(out)
    doc = json.loads(path.read_text()) if path.exists() else {"meta": {}, "points": {}}
    runner = get_runner("cuda")
    import torch
    doc["meta"].update(device_name=runner.device_name, torch=torch.__version__,
                       date=time.strftime("%Y-%m-%d"), what="eager launch times per external grid point")
    t0 = time.monotonic()
    for g in ordered(rx.grid_points()):
        if _key(g) in doc["points"]:
            continue
        if time.monotonic() - t0 > budget_s:
            print(f"launch shares: budget of {budget_s:.0f} s reached; run again to resume")
            break
        spec = prepare(runner, Spec(g["model"], g["batch"], g.get("seq"), g["dtype"]))
        eager = runner.profile(spec)["eager"]
        doc["points"][_key(g)] = {"gpu_ops": eager.gpu_ops, "kinds": _kinds(eager.ops),
                                  "launch_us": eager.launch_us, "span_us": eager.span_us}
        runner.cleanup()
        path.write_text(json.dumps(doc))
        first = eager.launch_us[0] / eager.span_us if eager.launch_us else None
        print(f"launch shares: {_key(g)}: {eager.gpu_ops} ops, span {eager.span_us} µs, first launch at "
              f"{'-' if first is None else f'{first:.3f}'} of it")
    runner.close()


def apply(grid: str, shares: str, out: str) -> None:
    import copy
    from runtime_core.diagnose import record_external as rx
    from runtime_core.recordings import store
    doc = store.load(grid, kind="diagnose").data
    got = json.loads(Path(shares).read_text())["points"]
    before = rx.snapshot(copy.deepcopy(doc))["summary"]["accuracy"]
    used = 0
    for p in doc["points"]:
        s = got.get(_key(p))
        rows = (p.get("profile") or {}).get("eager_ops") or []
        if s and s["gpu_ops"] == p["gpu_ops"] and s["kinds"] == _kinds(rows) and s["launch_us"]:
            p["profile"]["eager_launch_us"], p["profile"]["eager_span_us"] = s["launch_us"], s["span_us"]
            used += 1
    doc = rx.snapshot(doc)
    store.write(out, doc)
    print(f"launch shares used at {used} of {len(doc['points'])} points ({out})")
    print("  even shares:            " + _line(before))
    print("  profiled launch times:  " + _line(doc["summary"]["accuracy"]))


def _line(a: dict) -> str:
    return (f"speedups {a['within']}/{a['eligible']}, verdicts {a['verdict_right']}/{a['points']}, band "
            f"{a['band_holds']}/{a['banded']} at half-width {(a['band_median_half_width'] or 0):.1%}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "record":
        record(sys.argv[2], float(sys.argv[3]))
    elif len(sys.argv) == 5 and sys.argv[1] == "apply":
        apply(*sys.argv[2:])
    else:
        sys.exit(__doc__)
