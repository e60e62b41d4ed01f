#!/usr/bin/env bash
# GPU session 10 (device tool, one H200, torch 2.11): the constants issue's experiments, recorded
# first (model/experiments.py, 6 passes spread over a few minutes, beside the old calibration),
# then `pytest -m gpu` on the tree as it is. Returns under $OUT:
#   experiments_h200.json   the raw experiments (copy to lessons/recordings/calibration_h200.json)
#   gpu_tests.log           pytest -m gpu
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name(0))"
echo "=== 1. the calibration experiments"
timeout 300 python3 tests/gpu_runs/constants_experiments.py "$OUT/experiments_h200.json" 6 15 > "$OUT/experiments.log" 2>&1
echo "rc=$?"; tail -60 "$OUT/experiments.log"
if [ "${TESTS:-1}" = "1" ]; then
  echo "=== 2. pytest -m gpu"
  timeout 420 python3 -m pytest -q -m gpu -x -p no:cacheprovider > "$OUT/gpu_tests.log" 2>&1
  echo "rc=$?"; tail -5 "$OUT/gpu_tests.log"
fi
