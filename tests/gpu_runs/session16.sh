#!/usr/bin/env bash
# Issue 25, session 16: does timing on the quickest core (engine.cores, RUNTIME_CORE_PIN=fastest)
# make the measurement repeat? Then the external grid and its 12 fresh re-checks, timed the way the
# probe's rule decides (fixed before the run: core_pick_probe.py's docstring). Three calls:
#   STEP=grid      core_pick_probe (4 points x 30 s), its decision, then the one-process grid ->
#                  tests/gpu_runs/results/diagnose_external_pick_h200.json (resumed if incomplete)
#   STEP=rechecks  PIN=<the decision> the 12 re-check points (session15.sh's diagonal) not yet in
#                  $REDIR, one fresh process each, within the call's budget; GPU_TESTS=1: pytest -m gpu
# Copy what comes back into tests/gpu_runs/results/ after each call (the next call resumes it).
# Run 2026-12-01: STEP=grid (probe chose fastest; grid 23/42 within ±15%), then STEP=ab three times
# (44 of 48 points; the last four came in session17.sh's first call). The big results ship gzipped.
# The re-checks (STEP=rechecks) were not run: the quickest core lost the side-by-side grid.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
BUDGET=${BUDGET_S:-565}
REC=tests/gpu_runs/results/diagnose_external_pick_h200.json
REDIR=tests/gpu_runs/results/rechecks_pick
if [ "${STEP:-grid}" = ab ]; then
  mkdir -p tests/gpu_runs/results/pin_ab
  python3 tests/gpu_runs/pin_ab_grid.py tests/gpu_runs/results/pin_ab $(( BUDGET - ${TESTS_S:-0} )) > "$OUT/ab.log" 2>&1
  echo "ab rc=$? $(el) s"; tail -n 4 "$OUT/ab.log"
  tar czf "$OUT/pin_ab.tgz" -C tests/gpu_runs/results pin_ab
  for m in middle fastest; do python3 -m runtime_core accuracy --recording tests/gpu_runs/results/pin_ab/pin_$m.json 2>&1 | head -n 4; done
  if [ "${GPU_TESTS:-0}" = 1 ]; then
    timeout $(( BUDGET - $(el) + 20 )) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_diagnose_gpu.py \
      tests/test_diagnose_external.py tests/test_cores.py > "$OUT/gpu_tests.log" 2>&1
    echo "pytest rc=$? $(el) s"; tail -n 6 "$OUT/gpu_tests.log"
  fi
  exit 0
fi
if [ "${STEP:-grid}" = grid ]; then
  if [ ! -f "$REC" ]; then
    python3 tests/gpu_runs/core_pick_probe.py "$OUT/core_pick_probe.json" ${PROBE_S:-30} resnet18:1:fp32 \
      mobilenet_v3_small:4:bf16 gpt2_decode:1:bf16 efficientnet_b0:1:fp32 > "$OUT/probe.log" 2>&1
    echo "probe rc=$? $(el) s"; cat "$OUT/probe.log" | tail -n 20
    python3 tests/gpu_runs/core_pick_probe.py --summary "$OUT/core_pick_probe.json" | tail -n 1 | tee "$OUT/decision.txt"
  fi
  PIN=${PIN:-$(grep -o 'RUNTIME_CORE_PIN=[a-z]*' "$OUT/decision.txt" 2>/dev/null | cut -d= -f2)}
  export RUNTIME_CORE_PIN=${PIN:-middle}; echo "grid timed with RUNTIME_CORE_PIN=$RUNTIME_CORE_PIN"
  RESUME=""; [ -f "$REC" ] && RESUME=--resume
  LEFT=$(( BUDGET - $(el) ))
  timeout $(( LEFT + 25 )) python3 -m runtime_core diagnose --set external --record "$REC" $RESUME --force \
    --budget-s $(( LEFT - 15 )) > "$OUT/grid.out" 2> "$OUT/grid.log"
  echo "grid rc=$? $(el) s"; grep "diagnose record" "$OUT/grid.log" | tail -n 50 | cut -c1-200
  cp -f "$REC" "$OUT/"
  python3 -m runtime_core accuracy --recording "$REC" 2>&1 | tail -n 16
  exit 0
fi
export RUNTIME_CORE_PIN=${PIN:?set PIN to the decision of the grid call}
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
tar czf "$OUT/rechecks_pick.tgz" -C tests/gpu_runs/results rechecks_pick
if [ "${GPU_TESTS:-0}" = 1 ]; then
  timeout $(( BUDGET - $(el) + 20 )) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_diagnose_gpu.py \
    tests/test_diagnose_external.py tests/test_cores.py > "$OUT/gpu_tests.log" 2>&1
  echo "pytest rc=$? $(el) s"; tail -n 6 "$OUT/gpu_tests.log"
fi
# STEP=ab (appended after the grid call showed the quickest core's grid worse than the older one):
#   both pin modes' grids side by side (pin_ab_grid.py) into tests/gpu_runs/results/pin_ab/, resumed
#   over calls; GPU_TESTS=1 then runs pytest -m gpu on what this session changed.
