#!/usr/bin/env bash
# Issue 25, session of 2026-12-02 (evening): the external grid with the host's floor (host_floor.py).
# Run on 2026-12-02 with 40 rounds over 10 s (REC=...floor_h200.json, 21 points; ...floor_b_h200.json,
# 20 points). The code now times 60 rounds over 15 s, so the grid starts again in a new file:
# STEP=probe (first, about 5 minutes): the host's floor drift on the zoo's own models, the source
# of the band's drift constant (floor_repeat.py reads it as drift_zoo_h200.json):
#   run(command="STEP=probe bash tests/gpu_runs/session20.sh", timeout_s=600)
#   then: cp <files_at>/drift_zoo_h200.json tests/gpu_runs/results/ ; commit
# STEP=grid (one whole call each, resumable; about 36 s a point in one process: three calls):
#   run(command="STEP=grid BUDGET_S=560 bash tests/gpu_runs/session20.sh", timeout_s=600)
#   then: cp <files_at>/diagnose_external_floor15_h200.json tests/gpu_runs/results/ ; commit
# STEP=rechecks: the 12 fresh-process re-checks (every network and dtype at batch 4), resumable:
#   run(command="STEP=rechecks BUDGET_S=560 bash tests/gpu_runs/session20.sh", timeout_s=600)
#   then: tar -xf <files_at>/rechecks_floor.tar -C tests/gpu_runs/results ; commit
# STEP=tests: pytest -m gpu on the files whose GPU paths the floor changed (carry .whl for jsonschema).
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
REC=${REC:-tests/gpu_runs/results/diagnose_external_floor15_h200.json}
case "${STEP:-grid}" in
  probe)
    python3 tests/gpu_runs/repeat_probe.py "$OUT/drift_zoo_h200.json" 60 mlp:1:fp32 cnn:1:fp32 encoder:1:fp32 \
      decoder:1:fp32 2>&1 | grep -v -i warn
    ;;
  grid)
    # the grid grows in its copy under $OUT, written after every point: a call cut short still
    # brings back every point it finished
    cp "$REC" "$OUT/" 2>/dev/null; REC="$OUT/$(basename "$REC")"
    python3 tests/gpu_runs/floor_grid.py "$REC" "${BUDGET_S:-560}" 2>&1 | grep -v -i warn
    python3 -m runtime_core accuracy --recording "$REC" | tail -12
    ;;
  rechecks)
    # the 12 re-checks, fixed before the grid was complete: every network and dtype at batch 4, one
    # fresh `diagnose` process each (about 100 s), resumable: a point already in the folder is skipped
    python3 tests/gpu_runs/floor_grid.py --rechecks tests/gpu_runs/results/rechecks_floor "${BUDGET_S:-560}" 2>&1 | grep -v -i warn
    tar -cf "$OUT/rechecks_floor.tar" -C tests/gpu_runs/results rechecks_floor
    ;;
  tests)
    set -o pipefail
    python3 -m pytest -m gpu -q -x -p no:cacheprovider ${TESTS:-tests/test_diagnose_gpu.py} 2>&1 | tee "$OUT/gpu_tests_session20.log" | tail -5
    ;;
  *) echo "STEP is probe, grid, rechecks or tests" >&2; exit 2 ;;
esac
exit 0
