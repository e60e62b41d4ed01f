#!/usr/bin/env bash
# GPU session 11, call 4: the capture-failure verdict from the CLI, then the GPU tests of the files
# this session's changes touch (diagnose, AOT's C++ runner through cpp_extension, the trace worker,
# the allocator child). Returns under $OUT: failure.json, failure.err, gpu_tests.log
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
echo "=== capture failure"
(cd tests/fixtures && PYTHONPATH=$PWD:$OLDPWD:/tmp/site timeout 90 python3 -m runtime_core diagnose --model uncapturable_model:make \
  --batch 4 --no-compile --json) > "$OUT/failure.json" 2> "$OUT/failure.err"; echo "rc=$?"
python3 -c "import json; d=json.load(open('$OUT/failure.json')); print(d['capturable'], json.dumps(d['verdict'], indent=1)[:1500])"
echo "=== pytest -m gpu (touched files)"
timeout ${T_S:-320} python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_diagnose_gpu.py tests/test_aot_gpu.py \
  tests/test_cuda_backend.py tests/test_allocator_compare.py > "$OUT/gpu_tests.log" 2>&1; echo "rc=$?"; tail -15 "$OUT/gpu_tests.log"
