"""Record one of issue 28's torch-level labs on this machine's GPU into OUTDIR/NAME.json:
{"recorded_at", "result"} (the lab's result dict, as run_lab(NAME, "cuda") returns it), or
{"recorded_at", "error"} when it raised. NaN and infinities become null (a recording holds none).

    python3 tests/gpu_runs/record_labs28.py NAME OUTDIR
"""
import json
import math
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def finite(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [finite(x) for x in v]
    return v


def main(name: str, outdir: str) -> int:
    from runtime_core.labs import run_lab
    from runtime_core.recordings.store import now_utc
    out, t0 = {"recorded_at": now_utc(), "lab": name}, time.time()
    try:
        out["result"] = finite(run_lab(name, "cuda"))
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
        out["traceback"] = traceback.format_exc()[-4000:]
    out["seconds"] = round(time.time() - t0, 1)
    Path(outdir).mkdir(parents=True, exist_ok=True)
    Path(outdir, f"{name}.json").write_text(json.dumps(out, indent=1, allow_nan=False))
    r = out.get("result") or {}
    print(f"{name}: {out['seconds']} s, signal={r.get('signal')}, " + (r.get("verdict") or out.get("error", "")))
    return 0 if "result" in out else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
