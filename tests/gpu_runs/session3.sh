#!/usr/bin/env bash
# GPU session 3 (device tool, one H200, torch 2.11): the reduce_overhead lab and its recording,
# the compile stages cold vs warm on CUDA, serving with the ranged AOT package on CUDA, and the
# GPU tests of the new code. About 9-10 minutes in all; each step checks the time left and the
# later (less important) ones are skipped rather than cut off. Six files come back under $OUT:
#   reduce_overhead_h200.json  the recording: copy it to lessons/recordings/ and commit it
#   ro.log                     the lab's JSON on stdout and any point that failed on stderr
#   stages_cuda.json           two lines: the cold and the warm compile child (stages, counters)
#   serving_cuda.json, serving.log   aot serving --device cuda (results, then stderr)
#   pytest_gpu.log             pytest -m gpu: the ranged CUDA package in the C++ runner
# Step 1 checks the lab's GPU result against the lesson's claims (tests/test_reduce_overhead_lab.py
# claims_that_fail, the same check as its gpu test) without running the lab twice.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; START=$(date +%s); BUDGET=${BUDGET:-590}
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
if [ -d .whl ]; then  # jsonschema etc. for this machine (../shared/tools/gpu-wheels.sh); optional
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
fi
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name(0))"

echo "=== 1. reduce_overhead lab + cudagraph-trees experiments -> recording (~2.5 min)"
timeout 300 python3 -m runtime_core aot reduce-overhead --json --force \
  --record "$OUT/reduce_overhead_h200.json" > "$OUT/ro.log" 2>&1; echo "rc=$?"
python3 - "$OUT/reduce_overhead_h200.json" <<'PY' || tail -20 "$OUT/ro.log"
import json, sys
sys.path.insert(0, "tests")
from test_reduce_overhead_lab import claims_that_fail  # the GPU test's assertions, on this run
d = json.load(open(sys.argv[1])); lab = d["labs"]["reduce_overhead"]
print("complete:", d["meta"]["complete"], "| errors:", lab["errors"], "| owed:", lab["owed"], "| signal:", lab["signal"])
print("lesson claims that FAIL on this GPU:", claims_that_fail(lab) or "none")
print(lab["verdict"][:1500])
PY

echo "=== 2. compile stages, cold then warm, on CUDA (~40 s)"
if [ "$(left)" -gt 120 ]; then
  D=$(mktemp -d)
  for run in cold warm; do
    TORCHINDUCTOR_CACHE_DIR="$D" timeout 180 python3 -m runtime_core.aot.child compile compile cuda
  done > "$OUT/stages_cuda.json" 2>/dev/null; echo "rc=$?"
  python3 -c "
import json, sys
for line, run in zip(open('$OUT/stages_cuda.json'), ('cold', 'warm')):
    d = json.loads(line); s = d.get('stages') or {}
    print(run, round(d['first_call_s'], 2), 's', d.get('counters'), {k: round(s[k], 3) for k in ('bytecode_tracing', 'build_guards', 'GraphLowering.run', 'Scheduler.codegen', 'async_compile.wait') if k in s})"
fi

echo "=== 3. serving: ranged package vs exact-shape packages on CUDA (~4-5 min: four CUDA packages)"
if [ "$(left)" -gt 200 ]; then
  timeout $(( $(left) - 100 )) python3 -m runtime_core aot serving --device cuda --json > "$OUT/serving_cuda.json" 2> "$OUT/serving.log"
  echo "rc=$?"
  python3 - "$OUT/serving_cuda.json" <<'PY' || tail -5 "$OUT/serving.log"
import json, sys
d = json.load(open(sys.argv[1]))
print("errors:", d["errors"]); print("unchecked:", d["unchecked"])
for r in d["rows"]: print(r["batch"], r["path"], r.get("served_ms"), r.get("ranged_ms"), r.get("exact_ms"), r.get("package_check"))
for r in d["cpp"]: print("cpp", r["package"], r["batch"], r["input_check"], r["run_ms"], r["matches_reference"], r["error"])
PY
fi

echo "=== 4. pytest -m gpu: the ranged CUDA package in the C++ runner (~20 s once step 3 built it)"
if [ "$(left)" -gt 60 ]; then
  timeout $(( $(left) - 10 )) python3 -m pytest -q -m gpu -p no:cacheprovider -rf \
    tests/test_aot_gpu.py -k cuda_package > "$OUT/pytest_gpu.log" 2>&1; echo "rc=$?"
  tail -15 "$OUT/pytest_gpu.log"
fi
echo "=== done after $(( $(date +%s) - START )) s"
