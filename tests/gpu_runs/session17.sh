#!/usr/bin/env bash
# Issue 25, session 17. STEP=mix: what a memset, a copy or a different kernel costs between kernel
# nodes of a graph (model/node_mix.py, kernels of our own making), written into the shipped
# node_costs recording's mix section; then the side-by-side grid's last four points owed by
# session 16 (pin_ab_grid.py resumes from the shipped .gz files).
# Run 2026-12-02, one call each: STEP=mix (the first mix, 64 KB and 1 MB memsets only: its derive
# refused, nothing written; the four A/B points came back), STEP=gaps (graph_gap_probe.py ->
# results/session17/graph_gaps_h200.json.gz), a bare run_mix with the small memsets
# (results/session17/mix_rows_first_h200.json), STEP=final (the mix as shipped, pytest -m gpu: 20
# passed, six re-checks), STEP=rechecks (four more). Owed: the last two re-checks (STEP=rechecks).
# Before STEP=rechecks, copy the node_costs recording that STEP=final brought back into the tree:
# the children predict with it.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
if [ "${STEP:-mix}" = mix ]; then
  python3 -m runtime_core node-costs --mix --out lessons/recordings/node_costs_h200.json > "$OUT/mix.json" 2> "$OUT/mix.log"
  echo "mix rc=$? $(el) s"; cat "$OUT/mix.json"; grep -v "^\[" "$OUT/mix.log" | tail -n 30
  cp -f lessons/recordings/node_costs_h200.json "$OUT/"
  if [ "${AB:-1}" = 1 ]; then
    gunzip -kf tests/gpu_runs/results/pin_ab/*.gz
    mkdir -p tests/gpu_runs/results/pin_ab
    python3 tests/gpu_runs/pin_ab_grid.py tests/gpu_runs/results/pin_ab $(( ${BUDGET_S:-400} - $(el) )) > "$OUT/ab.log" 2>&1
    echo "ab rc=$? $(el) s"; tail -n 6 "$OUT/ab.log"
    gzip -kf tests/gpu_runs/results/pin_ab/pin_middle.json tests/gpu_runs/results/pin_ab/pin_fastest.json
    tar czf "$OUT/pin_ab.tgz" -C tests/gpu_runs/results pin_ab/pin_middle.json.gz pin_ab/pin_fastest.json.gz
  fi
  exit 0
fi
# STEP=gaps: graph_gap_probe.py on points whose graph steps ran far over their prediction, and on
# points that did not; then pytest -m gpu on what this session changed (GPU_TESTS=1).
if [ "$STEP" = gaps ]; then
  python3 tests/gpu_runs/graph_gap_probe.py "$OUT/graph_gaps.json" gpt2_prompt:64:fp32 gpt2_prompt:1:bf16 \
    bert_base:64:fp32 bert_base:1:bf16 gpt2_decode:64:fp32 gpt2_decode:1:bf16 mobilenet_v3_small:64:fp32 \
    resnet18:1:fp32 resnet18:1:bf16 efficientnet_b0:4:bf16 > "$OUT/gaps.log" 2>&1
  echo "gaps rc=$? $(el) s"; tail -n 12 "$OUT/gaps.log"; gzip -f "$OUT/graph_gaps.json"
  if [ "${GPU_TESTS:-0}" = 1 ]; then
    timeout $(( ${BUDGET_S:-500} - $(el) )) python3 -m pytest -q -m gpu -p no:cacheprovider ${GPU_TEST_FILES:-tests} > "$OUT/gpu_tests.log" 2>&1
    echo "pytest rc=$? $(el) s"; tail -n 6 "$OUT/gpu_tests.log"
  fi
fi
# STEP=final: the mix as shipped (node_mix.py with its memsets by size) into the node_costs
# recording; pytest -m gpu on the files this session changed; then fresh re-checks (session15.sh's
# diagonal: every network and dtype once) into $REDIR, their profiles now carrying each memset's
# bytes, as many as the call's budget allows. STEP=rechecks: the re-checks not yet in $REDIR.
REDIR=tests/gpu_runs/results/rechecks_s17
rechecks() {
  mkdir -p "$REDIR"
  for p in resnet18:1:fp32 resnet18:4:bf16 mobilenet_v3_small:16:fp32 mobilenet_v3_small:64:bf16 efficientnet_b0:1:fp32 \
           efficientnet_b0:4:bf16 bert_base:16:fp32 bert_base:64:bf16 gpt2_prompt:1:fp32 gpt2_prompt:4:bf16 \
           gpt2_decode:16:fp32 gpt2_decode:64:bf16; do
    IFS=: read -r name b dt <<< "$p"
    f="$REDIR/${name}_${b}_${dt}.json"
    [ -s "$f" ] && continue
    [ $(( $(el) + 70 )) -gt "${BUDGET_S:-560}" ] && { echo "budget: $p and later left for the next call"; break; }
    s=$(date +%s)
    timeout 120 python3 -m runtime_core diagnose --model "validation.external:$name" --batch "$b" --dtype "$dt" \
      --no-compile --json --timeline > /tmp/r.json 2> /tmp/r.err   # --timeline keeps the profile (memsets)
    rc=$?
    [ $rc = 0 ] && python3 -c "import json; d=json.load(open('/tmp/r.json')); d.pop('timelines',None); d['process_wall_s']=$(( $(date +%s) - s )); json.dump(d,open('$f','w'))"
    echo "$name b$b $dt rc=$rc $(( $(date +%s) - s )) s (total $(el) s)"; [ $rc = 0 ] || tail -n 5 /tmp/r.err
  done
  tar czf "$OUT/rechecks_s17.tgz" -C tests/gpu_runs/results rechecks_s17
}
if [ "$STEP" = final ]; then
  python3 -m runtime_core node-costs --mix --out lessons/recordings/node_costs_h200.json > "$OUT/mix.json" 2> "$OUT/mix.log"
  echo "mix rc=$? $(el) s"; cat "$OUT/mix.json"
  cp -f lessons/recordings/node_costs_h200.json "$OUT/"
  timeout 330 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_diagnose_gpu.py \
    tests/test_diagnose_external.py tests/test_node_mix.py tests/test_cores.py > "$OUT/gpu_tests.log" 2>&1
  echo "pytest rc=$? $(el) s"; tail -n 8 "$OUT/gpu_tests.log"
  rechecks
fi
[ "$STEP" = rechecks ] && rechecks
exit 0
