#!/usr/bin/env bash
# Issue 25, session 15: the external grid again, with H timed in 19 rounds spread over two seconds
# (diagnosis.host_rounds) instead of five back to back, then 12 of its points re-checked as fresh
# `diagnose` processes. One script, three calls (each under the 600 s limit; each resumes):
#   STEP=grid      the one-process grid -> tests/gpu_runs/results/diagnose_external_spread_h200.json
#                  (resumed if the file is there and incomplete; ~530 s for 48 points)
#   STEP=rechecks  the fixed 12 re-check points (below) not yet in $REDIR, one fresh process each,
#                  until the call's budget is spent; then, with GPU_TESTS=1, pytest -m gpu
#   run(command="STEP=grid bash tests/gpu_runs/session15.sh", carry=[".whl"], timeout_s=600)
# Copy what comes back into tests/gpu_runs/results/ after each call (the next call resumes it).
# The 12 re-checks are the grid's diagonal, fixed before anything was measured: point i of the
# grid's order (network, dtype, batch) where the batch index is (i // 4) % 4, i.e. every network and
# dtype once, at batches 1, 4, 16, 64 in turn.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
BUDGET=${BUDGET_S:-560}
REC=tests/gpu_runs/results/diagnose_external_spread_h200.json
REDIR=tests/gpu_runs/results/rechecks_spread
if [ "${STEP:-grid}" = grid ]; then
  RESUME=""; [ -f "$REC" ] && RESUME=--resume
  timeout $(( BUDGET + 25 )) python3 -m runtime_core diagnose --set external --record "$REC" $RESUME --force \
    --budget-s $(( BUDGET - 15 )) > "$OUT/grid.out" 2> "$OUT/grid.log"
  echo "grid rc=$? $(el) s"; grep "diagnose record" "$OUT/grid.log" | tail -n 50 | cut -c1-220
  cp -f "$REC" "$OUT/"
  python3 -m runtime_core accuracy --recording "$REC" 2>&1 | tail -n 12
  exit 0
fi
mkdir -p "$REDIR"
POINTS="resnet18:1:fp32 resnet18:4:bf16 mobilenet_v3_small:16:fp32 mobilenet_v3_small:64:bf16 efficientnet_b0:1:fp32
efficientnet_b0:4:bf16 bert_base:16:fp32 bert_base:64:bf16 gpt2_prompt:1:fp32 gpt2_prompt:4:bf16 gpt2_decode:16:fp32
gpt2_decode:64:bf16"
STOP_AT=$(( BUDGET - ${TESTS_S:-0} ))
for p in $POINTS; do
  IFS=: read -r name b dt <<< "$p"
  f="$REDIR/${name}_${b}_${dt}.json"
  [ -s "$f" ] && continue
  [ $(( $(el) + 75 )) -gt $STOP_AT ] && { echo "budget: $p and later left for the next call"; break; }
  s=$(date +%s)
  timeout 120 python3 -m runtime_core diagnose --model "validation.external:$name" --batch "$b" --dtype "$dt" \
    --no-compile --json > "/tmp/r.json" 2> "/tmp/r.err"
  rc=$?
  [ $rc = 0 ] && python3 -c "import json,sys; d=json.load(open('/tmp/r.json')); d.pop('timelines',None); d['process_wall_s']=$(( $(date +%s) - s )); json.dump(d,open('$f','w'))"
  echo "$name b$b $dt rc=$rc $(( $(date +%s) - s )) s (total $(el) s)"; [ $rc = 0 ] || tail -n 5 /tmp/r.err
done
tar czf "$OUT/rechecks_spread.tgz" -C tests/gpu_runs/results rechecks_spread
if [ "${GPU_TESTS:-0}" = 1 ]; then
  timeout $(( BUDGET - $(el) + 20 )) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_diagnose_gpu.py \
    tests/test_diagnose_external.py > "$OUT/gpu_tests.log" 2>&1
  echo "pytest rc=$? $(el) s"; tail -n 6 "$OUT/gpu_tests.log"
fi
