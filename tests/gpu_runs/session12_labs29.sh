#!/usr/bin/env bash
# Issue 29's five labs on one H200 (torch 2.11), in one call (~400 s): alloc_snapshot, malloc_async,
# alloc_conf, trees_lifecycle, compile_cache (each in fresh child processes; the file is rewritten
# after each lab, so a cut-short run keeps what finished). Needs .whl/ from
# ../shared/tools/gpu-wheels.sh ninja==1.13.2 (jsonschema to validate the recording; ninja for the
# C++ runner that loads the CPU-built package); .whl/ is git-ignored, so the device call carries it:
#   run(command="bash tests/gpu_runs/session12_labs29.sh", carry=[".whl"], kind="nvidia-h200", timeout_s=600)
# Returns under $OUT
# (3 files; 4 with TESTS=1):
#   labs29_h200.json   the recording (kind labs): merge it on the CPU machine with
#                      python tests/gpu_runs/merge_labs29.py labs29_h200.json lessons/recordings/labs_h200.json
#   labs29.log         each lab's signal, verdict, seconds, and any point's error
#   env.txt            torch, GPU, ninja
#   gpu_tests.log      with TESTS=1 only (a second call): pytest -m gpu tests/test_labs29.py
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
if [ "${TESTS:-0}" = "1" ]; then   # off by default: it measures the four CUDA labs again (~250 s)
  echo "=== pytest -m gpu tests/test_labs29.py"
  timeout ${T_TEST:-300} python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_labs29.py > "$OUT/gpu_tests.log" 2>&1
  echo "rc=$?"; tail -5 "$OUT/gpu_tests.log"
fi
