"""GPU run for the constants issue: every calibration experiment (model/experiments.py), PASSES
times spread over a few minutes (the host drifts between a fast and a slow state), beside the old
slope-and-residual calibration measured in the same process, into one JSON file.

    python3 tests/gpu_runs/constants_experiments.py OUT.json [PASSES] [PAUSE_S]
"""
import datetime
import json
import sys
import time

import torch

from runtime_core.engine.cuda_device import CudaDevice
from runtime_core.model import calibrate as old
from runtime_core.model.experiments import run_experiments


def main(out: str, passes: int = 6, pause_s: float = 15.0) -> None:
    dev = CudaDevice.shared()
    doc = {"meta": {"kind": "calibration_experiments", "device_name": dev.name, "torch_version": torch.__version__,
                    "recorded_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "kernel_size_table": dev.describe()["kernel_size_table"]},
           "passes": [], "old_calibration": []}
    run_experiments(dev)  # the first pass of a process runs slow (lazy init, clocks): thrown away
    for i in range(passes):
        t0 = time.time()
        doc["passes"].append(run_experiments(dev))
        if i % 2 == 0:
            doc["old_calibration"].append(old.calibrate(dev, passes=1).as_dict())
        print(f"pass {i + 1}/{passes}: {time.time() - t0:.1f} s; tax {doc['passes'][-1]['tax_us']} µs", flush=True)
        with open(out, "w") as f:
            json.dump(doc, f, indent=1)
        if i + 1 < passes:
            time.sleep(pause_s)
    try:  # the launch without Python: the C++ chain launcher (built against libtorch here)
        pts = [{"mode": m, "n": 200, "work_us": 0} for m in ("eager", "streams")]
        doc["native_launch"] = dev.native_launcher().measure(pts)
    except Exception as e:  # noqa: BLE001 (recorded, not fatal: the experiments are already saved)
        doc["native_launch_error"] = f"{type(e).__name__}: {e}"[:400]
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print(json.dumps({k: v for k, v in doc.items() if k != "meta"}, indent=None)[:6000])


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]), *(float(a) for a in sys.argv[3:4]))
