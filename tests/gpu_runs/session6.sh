#!/usr/bin/env bash
# GPU session 6 (device tool, one H200, torch 2.11): passes 2 and 3 of the diagnose recording
# (issue 14: the host drifts, so each point now keeps the median of three passes, each timing H
# before its steps), then its accuracy and the diagnose gpu tests. One call (~7-9 min); if it
# prints "complete": false, run it again (it resumes). Files back under $OUT:
#   diagnose_h200.json   copy it to lessons/recordings/ and commit it
#   diagnose.log         the recording's progress lines
#   pytest_diagnose.log  the diagnose gpu tests (the prediction targets on the new recording)
#   node_gap.json        the node gap against kernel width (node_gap_probe.py), for the next model step
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; BUDGET=${BUDGET:-300}
REC=lessons/recordings/diagnose_h200.json
if [ -d .whl ] && [ -z "$SITE_READY" ]; then  # jsonschema (store.write validates with it) and streamlit for AppTest
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
fi
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name(0))"
echo "=== 1. the missing passes of $REC (budget $BUDGET s, resumed)"
python3 -m runtime_core diagnose --sweep --record "$REC" --resume --budget-s "$BUDGET" > "$OUT/diagnose.json" 2> "$OUT/diagnose.log"
echo "rc=$?"; cat "$OUT/diagnose.json"; cp "$REC" "$OUT/"
echo "=== 2. the diagnose gpu tests"
timeout 120 python3 -m pytest -q -m gpu -rf tests/test_diagnose_recording.py tests/test_diagnose_gpu.py > "$OUT/pytest_diagnose.log" 2>&1
echo "rc=$?"; tail -5 "$OUT/pytest_diagnose.log"
echo "=== 3. the node gap against kernel width (~30 s)"
timeout 120 python3 tests/gpu_runs/node_gap_probe.py > "$OUT/node_gap.json" 2> "$OUT/node_gap.log"; echo "rc=$?"
cat "$OUT/node_gap.log"
