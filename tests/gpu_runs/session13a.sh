#!/usr/bin/env bash
# GPU session 13, call 1 (~560 s): what issues 21 and 23 still owe, then issue 28's recordings.
#   1. the C++ chain launcher built by torch.utils.cpp_extension on torch 2.11 (issue 23)
#   2. pytest -m gpu over the Device base class's launch loops (issue 21)
#   3. issue 28's four torch-level labs, each in its own process (no tests: call 3 runs them)
# Returns under $OUT (7 files): env.txt native.out gpu21.log labs28/<lab>.json x4
#   run(command="bash tests/gpu_runs/session13a.sh", carry=[".whl"], timeout_s=600)
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/labs28"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
t0=$(date +%s); el() { echo "  [$(( $(date +%s) - t0 )) s]"; }
python3 -c "import torch, shutil; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0), 'ninja:', shutil.which('ninja'))" | tee "$OUT/env.txt"
echo "=== native chain launcher"
timeout 170 python3 -c "
import time
from runtime_core.engine.backends import get_device
from runtime_core.engine.native import native_launcher
d = get_device('cuda'); t = time.time()
pts = [dict(mode=m, n=n, work_us=w) for m in ('eager', 'streams', 'graph') for n in (10, 1000) for w in (2,)]
for r in native_launcher(d).measure(pts): print(r)
print('seconds', round(time.time() - t, 2))" > "$OUT/native.out" 2>&1; echo "rc=$?"; tail -n 10 "$OUT/native.out"; el
echo "=== pytest -m gpu test_cuda_backend test_every_regime"
timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider --durations=8 tests/test_cuda_backend.py tests/test_every_regime.py \
  > "$OUT/gpu21.log" 2>&1; echo "rc=$?"; tail -n 14 "$OUT/gpu21.log"; el
for lab in partial_capture training_step graph_rng d2h_hazard; do
  echo "=== lab $lab"
  timeout 70 python3 tests/gpu_runs/record_labs28.py "$lab" "$OUT/labs28" > "/tmp/$lab.log" 2>&1
  echo "rc=$?"; grep -v "^\[W\|^frame #\|^Exception raised from" "/tmp/$lab.log" | tail -n 6 | cut -c1-600; el
done
echo "=== done"
