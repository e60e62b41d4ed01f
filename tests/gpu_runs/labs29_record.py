"""Record issue 29's five labs on this GPU into one labs recording (kind "labs"), lab by lab: the
file is rewritten after each lab, so a run cut short keeps the labs it finished (meta.complete
false until the last). A lab that raises is kept as {"error": ...} in meta.lab_errors, not in labs.

    python tests/gpu_runs/labs29_record.py OUT.json [LAB ...]     # default: all five, fast first
Then, on the CPU machine: python tests/gpu_runs/merge_labs29.py OUT.json lessons/recordings/labs_h200.json
"""
import json
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, however it is run

ORDER = ("alloc_snapshot", "malloc_async", "alloc_conf", "trees_lifecycle", "compile_cache")


def main(out: str, *names: str) -> int:
    import torch

    from runtime_core.labs import run_lab
    from runtime_core.recordings import store
    doc = {"meta": store.new_meta("labs", torch.cuda.get_device_name(0), torch.__version__, "cuda",
                                  command="python tests/gpu_runs/labs29_record.py OUT.json", complete=False,
                                  lab_seconds={}, lab_errors={}),
           "points": [], "labs": {}}
    todo = names or ORDER
    for name in todo:
        t = time.perf_counter()
        print(f"=== {name}", flush=True)
        try:
            r = run_lab(name, "cuda")
            doc["labs"][name] = r
            print(f"signal={r['signal']} {r['verdict'][:600]}", flush=True)
            for e in r.get("errors") or []:
                print("  point error:", e, flush=True)
        except Exception as e:
            doc["meta"]["lab_errors"][name] = f"{type(e).__name__}: {' '.join(str(e).split())[:600]}"
            traceback.print_exc()
        doc["meta"]["lab_seconds"][name] = round(time.perf_counter() - t, 1)
        print(f"    {doc['meta']['lab_seconds'][name]} s", flush=True)
        doc["meta"]["complete"] = name == todo[-1] and not doc["meta"]["lab_errors"]
        if doc["labs"]:
            store.write(out, doc)
        else:
            Path(out).write_text(json.dumps(doc, indent=1))
    return 0 if not doc["meta"]["lab_errors"] else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
