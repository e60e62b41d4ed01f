#!/usr/bin/env bash
# Issue 25, session 17. STEP=mix: what a memset, a copy or a different kernel costs between kernel
# nodes of a graph (model/node_mix.py, kernels of our own making), written into the shipped
# node_costs recording's mix section; then the side-by-side grid's last four points owed by
# session 16 (pin_ab_grid.py resumes from the shipped .gz files).
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
# recording; two fresh diagnoses of public networks, whose profiles now carry each memset's bytes;
# then pytest -m gpu on the files this session changed.
if [ "$STEP" = final ]; then
  python3 -m runtime_core node-costs --mix --out lessons/recordings/node_costs_h200.json > "$OUT/mix.json" 2> "$OUT/mix.log"
  echo "mix rc=$? $(el) s"; cat "$OUT/mix.json"
  cp -f lessons/recordings/node_costs_h200.json "$OUT/"
  for p in gpt2_prompt:1:fp32 resnet18:1:fp32; do
    IFS=: read -r name b dt <<< "$p"
    timeout 150 python3 -m runtime_core diagnose --model "validation.external:$name" --batch "$b" --dtype "$dt" \
      --no-compile --json > /tmp/r.json 2> /tmp/r.err
    echo "$p rc=$? $(el) s"; tail -n 2 /tmp/r.err
    python3 -c "import json; d=json.load(open('/tmp/r.json')); d.pop('timelines',None); json.dump(d,open('$OUT/fresh_${name}_${b}_${dt}.json','w'))"
  done
  timeout $(( ${BUDGET_S:-560} - $(el) )) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_diagnose_gpu.py \
    tests/test_diagnose_external.py tests/test_node_mix.py tests/test_cores.py > "$OUT/gpu_tests.log" 2>&1
  echo "pytest rc=$? $(el) s"; tail -n 8 "$OUT/gpu_tests.log"
fi
