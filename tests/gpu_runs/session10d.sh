#!/usr/bin/env bash
# GPU session 10, call 4: the corrections issue's evidence first (reduce-overhead skips with graph
# partitioning on and off; PyTorch's caching allocator), then `pytest -m gpu` on the final tree.
#   corrections_h200.json   fold it in with: python tests/gpu_runs/merge_corrections.py PATH
#   gpu_tests.log           pytest -m gpu
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
timeout 150 python3 tests/gpu_runs/corrections_evidence.py "$OUT/corrections_h200.json" $PART > "$OUT/corrections.log" 2>&1
echo "rc=$?"; tail -c 2500 "$OUT/corrections.log"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PWD:/tmp/site
fi
if [ "${TESTS:-1}" = "1" ]; then
  timeout 440 python3 -m pytest -q -m gpu -p no:cacheprovider > "$OUT/gpu_tests.log" 2>&1
  echo "rc=$?"; grep -E "passed|failed|error" "$OUT/gpu_tests.log" | tail -20
fi
