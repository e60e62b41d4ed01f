#!/usr/bin/env bash
# Issue 25, session of 2026-12-03 (fourth): the rest of the fresh grid under the rule of fd9a288
# (op-by-op eager step, the stream gap), then the GPU tests the later refactor owes.
# The grid's working copy lives in out/ (ignored, so a warm machine keeps it between calls): a
# call resumes from it without waiting for the copy here. Each call also returns it under $OUT.
#   run(command="STEP=grid BUDGET_S=540 bash tests/gpu_runs/session22.sh", timeout_s=600)   (x2)
#   run(command="STEP=both BUDGET_S=120 bash tests/gpu_runs/session22.sh", carry=[".whl"], timeout_s=600)
#   then: cp <files_at>/diagnose_external_gap_h200.json tests/gpu_runs/results/ ; commit
# .whl holds only jsonschema and its dependencies (the whole streamlit set would pass the carry limit).
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" out
REC=tests/gpu_runs/results/diagnose_external_gap_h200.json
WORK=out/$(basename "$REC")
grid() {
  [ -f "$WORK" ] || cp "$REC" "$WORK"
  python3 tests/gpu_runs/floor_grid.py "$WORK" "${BUDGET_S:-540}" 2>&1 | grep -v -i warn
  cp "$WORK" "$OUT/"
  python3 -m runtime_core accuracy --recording "$WORK" | tail -12
}
tests() {
  if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
      && export PYTHONPATH=/tmp/site
  fi
  set -o pipefail
  python3 -m pytest -m gpu -q -x -p no:cacheprovider ${TESTS:-tests/test_diagnose_gpu.py tests/test_stream_gaps.py} 2>&1 \
    | tee "$OUT/gpu_tests_session22.log" | tail -5
}
case "${STEP:-grid}" in
  grid) grid ;;
  tests) tests ;;
  both) grid; tests ;;
  *) echo "STEP is grid, tests or both" >&2; exit 2 ;;
esac
exit 0
