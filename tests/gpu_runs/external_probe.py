"""Issue 25's first look at the external grid (not product code): the current diagnosis of every
point of validation.external.grid() in one process, with what the new model needs kept raw:
the eager step's GPU operations (kind, duration, grid, block, registers) from its Chrome trace,
the graph step's profiled busy time, and H timed in several rounds a few hundred ms apart.

    python3 tests/gpu_runs/external_probe.py OUT.json [fp32|bf16|all]
"""
import json
import sys
import time
import traceback

import torch

from runtime_core.diagnose.diagnosis import diagnose, prepare, _host_dispatch_us
from runtime_core.diagnose.runners import get_runner
from runtime_core.diagnose.spec import Spec
from validation.external import grid

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def gpu_rows(chrome: dict | None) -> list:
    if not chrome:
        return []
    ev = [e for e in chrome.get("traceEvents", []) if e.get("ph") == "X" and e.get("cat") in GPU_CATS]
    rows = []
    for e in sorted(ev, key=lambda e: float(e["ts"])):
        a = e.get("args") or {}
        rows.append([e["cat"], round(float(e["dur"]), 3), a.get("grid"), a.get("block"),
                     a.get("registers per thread"), a.get("shared memory"), e.get("name", "")[:50],
                     round(float(e["ts"]), 3)])
    return rows


def main(out_path: str, which: str) -> None:
    runner = get_runner("cuda")
    machine = runner.machine("live")
    doc = {"device": runner.device_name, "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"),
           "machine": machine.as_dict(), "points": []}
    pts = [p for p in grid() if which in ("all", p["dtype"])]
    t0 = time.monotonic()
    for i, g in enumerate(pts):
        t1 = time.monotonic()
        rec = dict(g)
        try:
            spec = prepare(runner, Spec(g["model"], g["batch"], g["seq"], g["dtype"]))
            prof = runner.profile(spec)
            step = runner.build(spec)
            hs = []
            for _ in range(5):
                hs.append(round(_host_dispatch_us(runner, step), 3))
                time.sleep(0.2)
            del step
            point = diagnose(runner, spec, machine, ("eager", "our_graph"), profile=prof)
            point.pop("timelines", None)
            rec.update(point=point, h_rounds=hs, eager_ops=gpu_rows(prof.get("chrome_trace")))
        except Exception:  # noqa: BLE001 - a probe: keep the reason, go on
            rec["error"] = traceback.format_exc(limit=6)[-2000:]
            runner.cleanup()
        doc["points"].append(rec)
        with open(out_path, "w") as f:
            json.dump(doc, f)
        p = rec.get("point") or {}
        print(f"[{i + 1}/{len(pts)}] {g['model']} b{g['batch']} {g['dtype']}: "
              f"pred {p.get('predicted_graph_speedup')} meas {p.get('measured_graph_speedup')} "
              f"H {rec.get('h_rounds')} {'ERROR' if 'error' in rec else ''} {time.monotonic() - t1:.1f}s "
              f"({time.monotonic() - t0:.0f}s)", file=sys.stderr, flush=True)
    runner.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "all")
