"""What one new widget setting costs the server, per mode and N (issue 21 item 9): page 6 in
recorded mode (RUNTIME_LIVE=0, as `make loadtest` serves it), run through Streamlit's AppTest in
this process; each knob change is a GPU-work value the server has not seen, so its simulated
column and timeline are computed. Prints the CPU seconds of each rerun (process time: the
script thread and whatever it starts), their mean and median per (mode, N), and exits 1 when a
mean is over the load test's target (0.15 s per knob change).

    python tests/load/setting_cost.py                       # N = 10, 300, 1,000, 2,000; every mode
    python tests/load/setting_cost.py --one-by-one          # the simulator without its bulk paths
    python tests/load/setting_cost.py --no-freeze           # without pages/ui/server_heap.py

The browsers' side (websocket, protobuf to a browser) is not in it: `make loadtest` measures that.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET_S = 0.15
CHANGES = 5


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modes", default="graph,streams,eager")
    ap.add_argument("--n", default="10,300,1000,2000")
    ap.add_argument("--one-by-one", action="store_true", help="SimDevice.bulk = False")
    ap.add_argument("--no-freeze", action="store_true", help="RUNTIME_GC_FREEZE=0")
    ap.add_argument("--json", metavar="PATH")
    a = ap.parse_args(argv)
    os.environ["RUNTIME_LIVE"] = "0"
    os.environ["RUNTIME_GC_FREEZE"] = "0" if a.no_freeze else "1"
    sys.path.insert(0, str(ROOT))
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    from streamlit.testing.v1 import AppTest
    from runtime_core.engine.sim.device import SimDevice
    SimDevice.bulk = not a.one_by_one
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.switch_page("pages/6_Launch_overhead_killer.py").run()

    def box(label: str):
        return next(w for w in at.number_input if w.label == label)
    work, out, bad = 2.55, {}, []
    for mode in a.modes.split(","):
        at.radio(key="w_mode").set_value(mode).run()
        for n in (int(x) for x in a.n.split(",")):
            box("N").set_value(n)
            at.run()
            ts = []
            for _ in range(CHANGES):
                work = round(work + 0.1, 2)
                box("GPU work / kernel (µs)").set_value(work)
                t0 = time.process_time()
                at.run()
                ts.append(time.process_time() - t0)
                if at.exception:
                    raise SystemExit(f"setting_cost: the page failed at {mode} N={n}: {at.exception}")
            mean = statistics.fmean(ts)
            out[f"{mode} N={n}"] = {"mean_s": round(mean, 3), "median_s": round(statistics.median(ts), 3),
                                    "runs_s": [round(t, 3) for t in ts]}
            print(f"{mode:8s} N={n:5d}  mean {mean:.3f} s  median {statistics.median(ts):.3f} s  "
                  f"({', '.join(f'{t:.3f}' for t in ts)})", flush=True)
            if mean > TARGET_S:
                bad.append(f"{mode} N={n}: {mean:.3f} s")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=2))
    for line in bad:
        print(f"setting_cost: over {TARGET_S} s per new setting: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
