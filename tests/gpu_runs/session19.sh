#!/usr/bin/env bash
# Issue 25, session of 2026-12-02 (afternoon; 1800 s of device time). Carry .whl.
# STEP=first (one call, about 590 s; run 2026-12-02): the owed runs of session18.sh (STEP=owed:
# the two re-checks and pytest -m gpu on the memset model's files), then the fresh-process grid
# (session18.sh STEP=fresh, diagnose_external_fresh2_h200.json) for what is left of the call.
# That file's points kept no profile (the recorder dropped it; fixed the same day), so it cannot
# be resumed. STEP=fresh: the grid recorded again with the fixed recorder, to a new file, one
# whole call each, resumable (about 46 s a point: 48 points take two sessions' device time).
#   run(command="STEP=fresh BUDGET_S=560 bash tests/gpu_runs/session19.sh", carry=[".whl"], timeout_s=600)
# After each: cp <files_at>/diagnose_external_fresh3_h200.json tests/gpu_runs/results/ ; commit;
# when it prints "complete": true, judge it:
#   python -m runtime_core accuracy --recording tests/gpu_runs/results/diagnose_external_fresh3_h200.json
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
  fresh)
    REC=tests/gpu_runs/results/diagnose_external_fresh3_h200.json bash tests/gpu_runs/session14_fresh_grid.sh
    ;;
  *) echo "STEP is first or fresh" >&2; exit 2 ;;
esac
exit 0
