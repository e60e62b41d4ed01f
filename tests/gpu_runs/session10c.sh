#!/usr/bin/env bash
# GPU session 10, call 3: `pytest -m gpu` on the final tree (the layers moves, the calibration by
# experiments), with the carried wheels (streamlit, plotly, jsonschema) for the AppTest ones.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PWD:/tmp/site
fi
timeout 540 python3 -m pytest -q -m gpu -p no:cacheprovider > "$OUT/gpu_tests.log" 2>&1
echo "rc=$?"; grep -E "passed|failed|error" "$OUT/gpu_tests.log" | tail -30
