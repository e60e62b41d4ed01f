"""Fold the four torch-level labs recorded by session12_labs.sh into the shipped labs recording:
each lab's result goes to lessons/recordings/labs_h200.json under labs.<name>, its own date to
meta.parts_recorded_at.<name> (the rest of the file keeps its date; each result carries its env).
A lab that raised, did not run on CUDA, or lacks a boolean signal is left out, and said so.

    python tests/gpu_runs/merge_labs28.py <files_at>/labs28/*.json     (then: git diff lessons/recordings)
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from runtime_core.labs import GPU_ONLY  # noqa: E402
from runtime_core.recordings import store  # noqa: E402

TARGET = Path(__file__).resolve().parents[2] / "lessons" / "recordings" / "labs_h200.json"


def usable(doc: dict) -> str | None:
    """Why a recorded file cannot be merged, or None."""
    r = doc.get("result")
    if not isinstance(r, dict):
        return doc.get("error") or "no result"
    if r.get("lab") not in GPU_ONLY:
        return f"not one of {sorted(GPU_ONLY)}: {r.get('lab')!r}"
    if r.get("backend") != "cuda" or r.get("source") != "live":
        return f"not a live CUDA run (backend {r.get('backend')!r}, source {r.get('source')!r})"
    if not isinstance(r.get("signal"), bool) or not r.get("verdict"):
        return "no boolean signal or no verdict"
    return None


def main(*paths: str) -> int:
    doc = json.loads(TARGET.read_text())
    merged = []
    for path in paths:
        rec = json.loads(Path(path).read_text())
        why = usable(rec)
        if why:
            print(f"{path}: left out: {why}")
            continue
        r = rec["result"]
        doc["labs"][r["lab"]] = r
        doc["meta"].setdefault("parts_recorded_at", {})[r["lab"]] = rec["recorded_at"]
        merged.append(r["lab"])
        print(f"{path}: {r['lab']} merged, signal={r['signal']}")
    if merged:
        store.write(TARGET, doc)
    print(f"merged {len(merged)} of {len(paths)} into {TARGET.name}: {', '.join(merged) or 'none'}")
    return 0 if merged else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
