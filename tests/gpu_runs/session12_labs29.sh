#!/usr/bin/env bash
# Issue 29's five labs on one H200 (torch 2.11), in one call (~400 s): alloc_snapshot, malloc_async,
# alloc_conf, trees_lifecycle, compile_cache (each in fresh child processes), then the GPU tests of
# the five. Needs .whl/ from ../shared/tools/gpu-wheels.sh ninja==1.13.2 (jsonschema to validate
# the recording; ninja for the C++ runner that loads the CPU-built package). Returns under $OUT
# (4 files):
#   labs29_h200.json   the recording (kind labs): merge it on the CPU machine with
#                      python tests/gpu_runs/merge_labs29.py labs29_h200.json lessons/recordings/labs_h200.json
#   labs29.log         each lab's signal, verdict, seconds, and any point's error
#   env.txt            torch, GPU, ninja
#   gpu_tests.log      pytest -m gpu tests/test_labs29.py
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
python3 -c "import torch, shutil; print(torch.__version__, torch.cuda.get_device_name(0), 'ninja:', shutil.which('ninja'))" \
  > "$OUT/env.txt" 2>&1; cat "$OUT/env.txt"
echo "=== record the five labs"
timeout ${T_REC:-480} python3 tests/gpu_runs/labs29_record.py "$OUT/labs29_h200.json" > "$OUT/labs29.log" 2>&1
echo "rc=$?"; grep -E "^(===|signal=|    [0-9.]+ s|  point error)" "$OUT/labs29.log" | cut -c1-400
if [ "${TESTS:-1}" = "1" ]; then
  echo "=== pytest -m gpu tests/test_labs29.py"
  timeout ${T_TEST:-100} python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_labs29.py > "$OUT/gpu_tests.log" 2>&1
  echo "rc=$?"; tail -5 "$OUT/gpu_tests.log"
fi
