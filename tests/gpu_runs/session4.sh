#!/usr/bin/env bash
# GPU session 4 (device tool, one H200, torch 2.11): the GPU tests of issue 15/16's code (the
# capture-failure recovery, the recapture storm's memory, the first live update after warm-up, the
# fair GPU line), then every gpu test, then the model's bounds on the latest recording. Run it
# after session3.sh, in a second call (about 5 minutes). Files back under $OUT:
#   pytest_new.log    the new gpu tests, with the printed figures (peak memory, warm-up seconds)
#   pytest_gpu.log    pytest -m gpu, everything
#   bounds.log        runtime_core accuracy --bounds on the latest recording (make check-gpu's 2nd half)
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ -d .whl ]; then  # streamlit, plotly, jsonschema for AppTest and recordings (../shared/tools/gpu-wheels.sh)
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
fi
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name(0))"
echo "=== 1. the new gpu tests (recovery, memory, warm start)"
timeout 240 python3 -m pytest -q -s -m gpu tests/test_recovery.py tests/test_live_gpu.py > "$OUT/pytest_new.log" 2>&1
echo "rc=$?"; grep -E "recapture storm|warm-up|passed|failed" "$OUT/pytest_new.log"
echo "=== 2. every gpu test"
timeout 420 python3 -m pytest -q -m gpu > "$OUT/pytest_gpu.log" 2>&1; echo "rc=$?"; tail -3 "$OUT/pytest_gpu.log"
echo "=== 3. the model's bounds on the latest recording"
rec=$(python3 -m runtime_core.recordings.names --latest 2>/dev/null || echo lessons/recordings/sweep_h200.json) && \
  timeout 60 python3 -m runtime_core accuracy --bounds --recording "$rec" > "$OUT/bounds.log" 2>&1
echo "rc=$?"; tail -5 "$OUT/bounds.log"
