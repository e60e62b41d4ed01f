#!/usr/bin/env bash
# Issue 25, session of 2026-12-02 (afternoon; 1800 s of device time). Carry .whl.
# STEP=first (one call, about 590 s): the owed runs of session18.sh (STEP=owed: the two re-checks
# and pytest -m gpu on the memset model's files), then the fresh-process grid (session18.sh
# STEP=fresh) for what is left of the call. STEP=fresh alone: the grid resumed, a whole call.
#   run(command="STEP=first bash tests/gpu_runs/session19.sh", carry=[".whl"], timeout_s=600)
#   run(command="STEP=fresh BUDGET_S=560 bash tests/gpu_runs/session18.sh", carry=[".whl"], timeout_s=600)
# After each: cp <files_at>/diagnose_external_fresh2_h200.json tests/gpu_runs/results/ ; commit.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
case "${STEP:-first}" in
  first)
    STEP=owed bash tests/gpu_runs/session18.sh
    left=$(( 588 - $(el) ))
    echo "owed done at $(el) s; fresh grid for ${left} s"
    [ "$left" -gt 100 ] && STEP=fresh BUDGET_S=$(( left - 8 )) TIMEOUT_S=$(( left - 2 )) bash tests/gpu_runs/session18.sh
    ;;
  *) echo "STEP is first (or use session18.sh STEP=fresh)" >&2; exit 2 ;;
esac
exit 0
