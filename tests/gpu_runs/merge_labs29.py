"""Fold a labs29_record.py result into the shipped labs recording: each of issue 29's labs that
finished without a child failure goes under labs.<name>, with its own date in
meta.parts_recorded_at (the recording's other labs keep theirs). Refuses a result from another
device or torch than the target's (a different machine is a new recording, not a part).

    python tests/gpu_runs/merge_labs29.py labs29_h200.json lessons/recordings/labs_h200.json
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, however it is run

from runtime_core.recordings import store

NAMES = ("trees_lifecycle", "compile_cache", "alloc_snapshot", "alloc_conf", "malloc_async")


def main(src: str, dst: str) -> int:
    new, old = json.loads(Path(src).read_text()), json.loads(Path(dst).read_text())
    for key in ("device_name", "torch_version", "backend"):
        if new["meta"][key] != old["meta"][key]:
            print(f"refused: {key} is {new['meta'][key]!r} in {src}, {old['meta'][key]!r} in {dst}")
            return 1
    merged = []
    for name in NAMES:
        lab = new["labs"].get(name)
        if isinstance(lab, dict) and "signal" in lab:
            old["labs"][name] = lab
            old["meta"].setdefault("parts_recorded_at", {})[name] = new["meta"]["recorded_at"]
            merged.append(name)
    store.write(dst, old)
    skipped = sorted(set(NAMES) - set(merged))
    print(f"merged into {Path(dst).name}: {', '.join(merged) or 'nothing'}"
          + (f"; not merged (absent or failed): {', '.join(skipped)}" if skipped else ""))
    for name, err in (new["meta"].get("lab_errors") or {}).items():
        print(f"  {name} failed there: {err}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
