#!/usr/bin/env bash
# A short GPU smoke run of every CUDA path the engine uses (device tool; results under $OUT).
# Each step logs and goes on: one failure must not hide the others.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
fi
step() { echo "=== $1"; shift; timeout "${T:-120}" "$@" > "$OUT/$name.out" 2>&1; rc=$?; echo "rc=$rc"; tail -n 15 "$OUT/$name.out"; }
name=env;       step env python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name(0))"
for m in eager streams graph; do
  name=measure_$m; step "measure $m" python3 -m runtime_core measure --mode $m --n 120 --work-us 2 --backend cuda
done
name=measure_graph_zc; step "measure graph zero-copy" python3 -m runtime_core measure --mode graph --n 120 --work-us 2 --graph-input zero-copy --backend cuda
name=measure_dyn; step "measure graph dynamic fallback" python3 -m runtime_core measure --mode graph --n 120 --work-us 2 --dynamic --backend cuda
name=calibrate; step "calibrate" python3 -c "
import time
from runtime_core.engine.device import get_device
from runtime_core.model.calibrate import calibrate
d = get_device('cuda'); t = time.time(); c = calibrate(d); print(c); print('seconds', round(time.time() - t, 2))"
name=native; T=300 step "C++ chain launcher" python3 -c "
import time
from runtime_core.engine.backends import get_device
from runtime_core.engine.native import native_launcher
d = get_device('cuda'); t = time.time()
pts = [dict(mode=m, n=n, work_us=w) for m in ('eager', 'streams', 'graph') for n in (10, 1000) for w in (2, 40)]
for r in native_launcher(d).measure(pts): print(r)
print('seconds', round(time.time() - t, 2))"
for l in overlap sync stale storm malloc fusion; do
  name=lab_$l; step "lab $l" python3 -m runtime_core lab $l --backend cuda
done
name=bench; step "bench" python3 -m runtime_core bench --json
name=pytest_gpu; T=420 step "pytest -m gpu" python3 -m pytest -q -m gpu -x -p no:cacheprovider --timeout=120 tests/test_cuda_backend.py tests/test_labs.py tests/test_allocator_compare.py tests/test_allocator_graph_pool.py tests/test_memory_plan.py tests/test_allocator_streams.py
echo "=== done"
