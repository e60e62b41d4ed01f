"""Issue 25 (not product code): the external grid twice, side by side in one process, once per way
of choosing the timing core (engine.cores: RUNTIME_CORE_PIN=middle, =fastest), point by point and
alternating which goes first, so both grids see the host's states alike. Each point is diagnosed
exactly as record_external's one-process grid diagnoses it (the same calibrations, every 16 points).

    python3 tests/gpu_runs/pin_ab_grid.py DIR BUDGET_S      (resumes DIR/pin_middle.json, pin_fastest.json)

The rule, fixed before the run: the default becomes the mode whose grid has more speedups within
±15% (accuracy's first target); on a tie, "middle" (the older behaviour).

The H200's answer (2026-12-01, three calls, 44 of 48 points; results/pin_ab/, gzipped): middle 27
of 39 within ±15%, verdicts 44 of 44, band 38 of 44 (half-width 22%); fastest 21 of 40, 42 of 44,
40 of 44 (34%). The median H of the two modes differs by 1%. "middle" stays the default. The last
four points (GPT-2 decode bf16) came on 2026-12-02 (session17.sh): all 48, middle 31 of 43,
fastest 25 of 44, with the model of the day before (the numbers `accuracy` prints now are the
model's of today, which prices a node from node_costs.py).
"""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from runtime_core.diagnose import record_external as rx  # noqa: E402
from runtime_core.diagnose.diagnosis import diagnose, prepare  # noqa: E402
from runtime_core.diagnose.machine import mean_machine, sample_of  # noqa: E402
from runtime_core.diagnose.runners import get_runner  # noqa: E402
from runtime_core.diagnose.spec import Spec  # noqa: E402

MODES = ("middle", "fastest")


def main(out_dir: str, budget_s: float):
    t0 = time.monotonic()
    runner = get_runner(os.environ.get("AB_BACKEND", "cuda"))
    paths = {m: Path(out_dir) / f"pin_{m}.json" for m in MODES}
    protocol = rx.IN_PROCESS + "; two grids side by side, one per RUNTIME_CORE_PIN"
    docs = {m: rx.open_target(runner, p, resume=p.exists(), force=True, protocol=protocol) for m, p in paths.items()}
    points = rx.grid_points()
    for d in docs.values():
        for g in points:
            d["meta"]["models"].setdefault(g["model"], rx._about(runner, g["model"], g.get("seq")))
        d["meta"]["protocol"] = protocol
    sample = sample_of(runner.machine("live"))
    for d in docs.values():
        d["meta"]["calibration_passes"].append(sample)
    for i, g in enumerate(points):
        if all(rx.key(g) in {rx.key(p) for p in d["points"]} for d in docs.values()):
            continue
        if time.monotonic() - t0 + 2 * rx.POINT_S > budget_s:
            print(f"budget: stopped before point {i + 1}/{len(points)}", flush=True)
            break
        if i and i % rx.CALIBRATE_EVERY == 0:
            sample = sample_of(runner.machine("live"))
            for d in docs.values():
                d["meta"]["calibration_passes"].append(sample)
        for m in (MODES if i % 2 == 0 else MODES[::-1]):
            d = docs[m]
            if rx.key(g) in {rx.key(p) for p in d["points"]}:
                continue
            os.environ["RUNTIME_CORE_PIN"] = m
            machine = mean_machine(d["meta"]["calibration_passes"], d["meta"]["node_spread_us"])
            p = diagnose(runner, prepare(runner, Spec(g["model"], g["batch"], g.get("seq"), g["dtype"])),
                         machine, ("eager", "our_graph"))
            p.pop("timelines", None)
            d["points"].append(p)
            rx._write(paths[m], d, complete=len(d["points"]) >= len(points))
            print(f"[{i + 1}/{len(points)}] {m:7} {g['model'].split(':')[-1]} {g['dtype']} b{g['batch']}: "
                  f"predicted {p['predicted_graph_speedup']}, measured {p['measured_graph_speedup']}", flush=True)
    runner.close()


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
