#!/usr/bin/env bash
# Issue 25: points of the external grid re-checked as fresh `diagnose` processes, each exactly as a
# user runs it (about 45 s a process on the H200, most of it imports and the live calibration).
# POINTS (name:batch:dtype, space-separated) picks them; each answer is folded into $OUT/rechecks.json
# as soon as it exists (a call returns at most 8 files, and a time limit keeps what is done).
#   POINTS="resnet18:1:fp32 ..." bash tests/gpu_runs/session11c.sh
# then: python tests/gpu_runs/merge_external.py lessons/recordings/diagnose_external_h200.json --rechecks <the answers>
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
POINTS=${POINTS:-"resnet18:1:fp32 resnet18:16:bf16 mobilenet_v3_small:4:fp32 mobilenet_v3_small:64:bf16 efficientnet_b0:1:bf16 resnet18:4:bf16 mobilenet_v3_small:1:bf16 gpt2_prompt:1:bf16 gpt2_decode:16:fp32"}
t0=$(date +%s)
for p in $POINTS; do
  IFS=: read -r name b dt <<< "$p"
  s=$(date +%s)
  timeout 90 python3 -m runtime_core diagnose --model "validation.external:$name" --batch "$b" --dtype "$dt" \
    --no-compile --json --timeline > "$OUT/r/${name}_${b}_${dt}.json" 2> "$OUT/r/${name}_${b}_${dt}.err"
  echo "$name b$b $dt rc=$? $(( $(date +%s) - s )) s (total $(( $(date +%s) - t0 )) s)" | tee -a "$OUT/rechecks.log"
  python3 - "$OUT" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1]); rows = []
for f in sorted((out / "r").glob("*.json")):
    try:
        d = json.loads(f.read_text()); d.pop("timelines", None); rows.append(d)
    except Exception as e:
        rows.append({"file": f.name, "error": repr(e), "stderr": f.with_suffix(".err").read_text()[-1500:]})
(out / "rechecks.json").write_text(json.dumps(rows))
PY
done
rm -rf "$OUT/r"
