"""Fold a corrections_evidence.py result into the shipped recordings: the skip regions (partition
on and off) into reduce_overhead_h200.json's lab (its verdict made again from the points), and
PyTorch's caching allocator into alloc_h200.json's labs. Each merged part keeps its own date in
meta.parts_recorded_at.

    python tests/gpu_runs/merge_corrections.py corrections_h200.json [more.json ...]
"""
import json
import sys
from pathlib import Path

from runtime_core.labs.reduce_overhead.points import finish
from runtime_core.recordings import store

DIR = Path(__file__).resolve().parents[2] / "lessons" / "recordings"


def main(*paths: str) -> None:
    ev = {}
    for path in paths:  # later files win, part by part (a part re-run on its own)
        doc = json.loads(Path(path).read_text())
        for part in ("skips", "skips_partition_off", "torch_allocator"):
            if part in doc:
                ev[part], ev[part + "_at"] = doc[part], doc["recorded_at"]
    ro_path, alloc_path = DIR / "reduce_overhead_h200.json", DIR / "alloc_h200.json"
    ro = json.loads(ro_path.read_text())
    lab = ro["labs"]["reduce_overhead"]
    for part in ("skips", "skips_partition_off"):
        if isinstance(ev.get(part), dict) and "error" not in ev[part]:
            lab[part] = ev[part]
            ro["meta"].setdefault("parts_recorded_at", {})[part] = ev[part + "_at"]
    ro["labs"]["reduce_overhead"] = finish(lab, lab["backend"], lab["source"], lab["device_name"], lab.get("recording"))
    store.write(ro_path, ro)
    alloc = json.loads(alloc_path.read_text())
    if isinstance(ev.get("torch_allocator"), dict) and "error" not in ev["torch_allocator"]:
        alloc["labs"]["torch_allocator"] = ev["torch_allocator"]
        alloc["meta"].setdefault("parts_recorded_at", {})["torch_allocator"] = ev["torch_allocator_at"]
    store.write(alloc_path, alloc)
    print("merged into", ro_path.name, "and", alloc_path.name)


if __name__ == "__main__":
    main(*sys.argv[1:])
