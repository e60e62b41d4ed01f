#!/usr/bin/env bash
# Issue 25, session of 2026-12-03 (afternoon): the eager stream gap on kernels of our own making
# (model/stream_gaps.py), the rule it feeds fixed and committed before this run, then the GPU tests.
# One call (about 6 minutes), .whl carried (jsonschema for the recordings' schemas):
#   run(command="bash tests/gpu_runs/session21.sh", carry=[".whl"], timeout_s=600)
#   then: cp <files_at>/node_costs_h200.json lessons/recordings/ ; commit ; paste gpu_tests_session21.log's last line
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
fi
cp lessons/recordings/node_costs_h200.json "$OUT/"
python3 -m runtime_core node-costs --stream --out "$OUT/node_costs_h200.json" 2>"$OUT/stream_gaps.log"
echo "node-costs --stream exit $?"; tail -3 "$OUT/stream_gaps.log"
cp "$OUT/node_costs_h200.json" lessons/recordings/node_costs_h200.json   # the tests below read it
set -o pipefail
python3 -m pytest -m gpu -q -x -p no:cacheprovider ${TESTS:-tests/test_diagnose_gpu.py tests/test_stream_gaps.py} 2>&1 \
  | tee "$OUT/gpu_tests_session21.log" | tail -5
exit 0
