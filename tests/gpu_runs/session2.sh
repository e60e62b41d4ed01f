#!/usr/bin/env bash
# Bench recording, the new labs on CUDA, the whole `pytest -m gpu`, then as much of the diagnose
# recording as the time allows (resumable). Results under $OUT.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; START=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  && export PYTHONPATH=/tmp/site
echo "=== bench"; timeout 120 python3 -m runtime_core bench --json --record "$OUT/bench_h200.json" > "$OUT/bench.out" 2>&1; echo "rc=$?"; tail -12 "$OUT/bench.out"
echo "=== labs"
for l in stream_reuse output_overwrite frozen_scalar broadcast_copy unmasked_padding no_warmup; do
  timeout 90 python3 -m runtime_core lab $l --backend cuda > "$OUT/lab_$l.json" 2> "$OUT/lab_$l.err"
  echo "$l rc=$? $(python3 -c "import json,sys; d=json.load(open('$OUT/lab_$l.json')); print(d['signal'], d['verdict'][:160])" 2>&1 | tail -1)"
done
echo "=== pytest -m gpu"
timeout 330 python3 -m pytest -q -m gpu --timeout=150 -p no:cacheprovider -rf > "$OUT/pytest_gpu.log" 2>&1; echo "rc=$?"
tail -25 "$OUT/pytest_gpu.log"
LEFT=$(( 575 - ($(date +%s) - START) ))
echo "=== diagnose (budget ${LEFT}s)"
if [ "$LEFT" -gt 60 ]; then
  timeout $(( LEFT + 20 )) python3 -m runtime_core diagnose --sweep --record "$OUT/diagnose_h200.json" --budget-s $(( LEFT - 30 )) > "$OUT/diagnose.out" 2> "$OUT/diagnose.err"
  echo "rc=$?"; tail -3 "$OUT/diagnose.out"; tail -5 "$OUT/diagnose.err"
fi
echo "=== done after $(( $(date +%s) - START )) s"
