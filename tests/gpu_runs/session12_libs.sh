#!/usr/bin/env bash
# Issue 23's last swaps on the GPU (torch 2.11, CUDA): the C++ runner and the chain launcher built by
# torch.utils.cpp_extension with the ninja wheel (no ninja on PATH there), and every child process
# through runtime_core/child_process.py. Needs .whl/ from tools/gpu-wheels.sh plus ninja==1.13.2.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  && export PYTHONPATH=/tmp/site
step() { echo "=== $1"; shift; timeout "${T:-120}" "$@" > "$OUT/$name.out" 2>&1; rc=$?; echo "rc=$rc"; tail -n 12 "$OUT/$name.out"; }
name=env; step env python3 -c "import torch, shutil; print(torch.__version__, torch.cuda.get_device_name(0), 'ninja on PATH:', shutil.which('ninja'))"
name=native; T=200 step "C++ chain launcher (cpp_extension, cuda=True)" python3 -c "
import time
from runtime_core.engine.backends import get_device
from runtime_core.engine.native import native_launcher
d = get_device('cuda'); t = time.time()
pts = [dict(mode=m, n=n, work_us=w) for m in ('eager', 'streams', 'graph') for n in (10, 1000) for w in (2,)]
for r in native_launcher(d).measure(pts): print(r)
print('seconds', round(time.time() - t, 2))"
name=pytest_gpu; T=330 step "pytest -m gpu (the files that run our children and builds)" python3 -m pytest -q -m gpu -p no:cacheprovider --timeout=200 --durations=10 \
  tests/test_aot_gpu.py tests/test_cuda_backend.py tests/test_diagnose_gpu.py tests/test_allocator_compare.py
name=pytest_child; step "the child-process helper on python 3.12" python3 -m pytest -q -p no:cacheprovider tests/test_child_process.py
echo "=== done"
