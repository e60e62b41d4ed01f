#!/usr/bin/env bash
# GPU session 9 (device tool, kind nvidia-h200-x2, torch 2.11), one call, two GPUs at once, each on
# its own half of the cores:
#   GPU 0: the diagnose recording's planner cases measured again (bucket_serving now warms every
#          size before its clock runs and lets the sets take turns; the planner prices pools high),
#          then the whole `pytest -m gpu` on the result (its own AOT cache)
#   GPU 1: the serving loop on CUDA (session7.sh STEP=serving)
# At most 8 files come back from $OUT: keep it to gpu0.out, gpu1.out, gpu0/{diagnose_h200.json,
# planner.log, pytest.log}, gpu1/{serving_h200.json, serving.log}.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/gpu0" "$OUT/gpu1"; START=$(date +%s)
REC=lessons/recordings/diagnose_h200.json
. tests/gpu_runs/two_gpus.sh  # the wheels, and pin
gpu0() {
  python3 - "$REC" <<'PY'
import json, sys
path = sys.argv[1]; doc = json.load(open(path))
doc["planner"] = []; doc["meta"]["complete"] = False  # --resume measures the planner cases again
open(path, "w").write(json.dumps(doc, indent=1, ensure_ascii=False))
PY
  pin 0 python3 -m runtime_core diagnose --sweep --record "$REC" --resume --budget-s 200 2> "$OUT/gpu0/planner.log"
  echo "rc=$?"; cp "$REC" "$OUT/gpu0/"
  RUNTIME_CORE_AOT_CACHE=/tmp/aot_pytest pin 0 timeout 450 python3 -m pytest -q -m gpu -rf -p no:cacheprovider \
    > "$OUT/gpu0/pytest.log" 2>&1; echo "pytest rc=$?"; tail -3 "$OUT/gpu0/pytest.log"
}
gpu0 > "$OUT/gpu0.out" 2>&1 &
pin 1 env OUT="$OUT/gpu1" STEP=serving bash tests/gpu_runs/session7.sh > "$OUT/gpu1.out" 2>&1 &
wait
rm -f "$OUT/gpu1/serving.json"  # the same results as serving_h200.json, printed; one file too many
for g in 0 1; do echo "===== GPU $g"; tail -30 "$OUT/gpu$g.out"; done
grep "diagnose planner" "$OUT/gpu0/planner.log"
echo "=== done after $(( $(date +%s) - START )) s"
