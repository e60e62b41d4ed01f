"""Issue 25 (not product code, no GPU): the launch-time rule on the recorded timelines that can
show it. A timeline keeps each launch call's CPU span and each GPU operation's span, µs from the
step's start, so a point whose timeline holds all K of both gives the op-by-op queue both its
durations and its ready times (the last CPU span's end stands for the dispatch's span). Prints
the eager step predicted with even shares and with the launch times, each against the measured
eager step. Points whose timeline misses a call (a memset's call is not drawn) are skipped.

    python tests/gpu_runs/ready_from_timelines.py lessons/recordings/diagnose_h200.json \
        tests/gpu_runs/results/rechecks_2026-12-01/*.json
"""
import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from runtime_core.diagnose.diagnosis import counts_of  # noqa: E402
from runtime_core.diagnose.predict import eager_step_us  # noqa: E402


def cases(path: str):
    """(point, its eager timeline, its Machine) for every point of `path` that has a timeline."""
    doc = json.loads(Path(path).read_text())
    if "points" in doc:  # a recording: one machine, timelines keyed by point
        from runtime_core.diagnose.records import DiagnoseRecording
        m = DiagnoseRecording.load(Path(path)).machine()
        for p in doc["points"]:
            key = f"{p['model']}|{p['dtype']}|b={p['batch']}|seq={p['seq']}|eager"
            if (doc.get("timelines") or {}).get(key):
                yield p, doc["timelines"][key], m
    elif (doc.get("timelines") or {}).get("eager"):  # one fresh-process point with its own constants
        from runtime_core.diagnose.record_external import point_machine
        yield doc, doc["timelines"]["eager"], point_machine(doc)


def main(paths: list[str]) -> None:
    for path in paths:
        for p, spans, m in cases(path):
            gpu = sorted((s for s in spans if s["lane"] == "gpu"), key=lambda s: s["start_us"])
            cpu = [s for s in spans if s["lane"] == "cpu"]
            calls = sorted((s for s in cpu if s["kind"] in ("launch", "copy")), key=lambda s: s["start_us"])
            name = f"{p['model'].split(':')[-1]} {p['dtype']} batch {p['batch']}"
            if not (len(gpu) == len(calls) == p["gpu_ops"]):
                print(f"  skip {name}: {len(gpu)} GPU spans, {len(calls)} calls, K {p['gpu_ops']}")
                continue
            span = max(s["end_us"] for s in cpu)
            k = replace(counts_of(p), op_us=tuple(s["end_us"] - s["start_us"] for s in gpu))
            even = eager_step_us(k, m)
            ready = eager_step_us(replace(k, op_ready=tuple(s["end_us"] / span for s in calls)), m)
            e = p["eager_us"]
            print(f"  {name:34s} H/B {p['host_dispatch_us'] / p['busy_us']:5.2f}  first launch at "
                  f"{calls[0]['end_us'] / span:.3f} of the dispatch  eager: even {even / e - 1:+6.1%}, "
                  f"launch times {ready / e - 1:+6.1%}")


if __name__ == "__main__":
    main(sys.argv[1:]) if sys.argv[1:] else sys.exit(__doc__)
