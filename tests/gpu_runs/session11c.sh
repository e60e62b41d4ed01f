#!/usr/bin/env bash
# GPU session 11, call 3 (issue 25): twelve points of the external grid re-checked as fresh
# `diagnose` processes, each exactly as a user runs it. Returns under $OUT:
#   rechecks.json (a list of the twelve JSON answers), rechecks.log
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
POINTS="resnet18:1:fp32 resnet18:16:bf16 mobilenet_v3_small:4:fp32 mobilenet_v3_small:64:bf16
efficientnet_b0:1:bf16 efficientnet_b0:16:fp32 resnet18:4:bf16 mobilenet_v3_small:1:bf16
bert_base:1:fp32 bert_base:4:bf16 gpt2_prompt:1:bf16 gpt2_decode:16:fp32"
t0=$(date +%s)
for p in $POINTS; do
  IFS=: read -r name b dt <<< "$p"
  s=$(date +%s)
  timeout 60 python3 -m runtime_core diagnose --model "validation.external:$name" --batch "$b" --dtype "$dt" \
    --no-compile --json --timeline > "$OUT/r/${name}_${b}_${dt}.json" 2> "$OUT/r/${name}_${b}_${dt}.err"
  echo "$name b$b $dt rc=$? $(( $(date +%s) - s )) s (total $(( $(date +%s) - t0 )) s)" | tee -a "$OUT/rechecks.log"
done
python3 - "$OUT" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1]); rows = []
for f in sorted((out / "r").glob("*.json")):
    try:
        d = json.loads(f.read_text()); d.pop("timelines", None); rows.append(d)
    except Exception as e:
        rows.append({"file": f.name, "error": repr(e), "stderr": (f.with_suffix(".err")).read_text()[-1500:]})
(out / "rechecks.json").write_text(json.dumps(rows))
for d in rows:
    print(d.get("model"), d.get("batch"), d.get("dtype"), d.get("predicted_graph_speedup"), d.get("predicted_speedup_band"), d.get("measured_graph_speedup"), d.get("error", ""))
PY
rm -rf "$OUT/r"
