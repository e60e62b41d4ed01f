#!/usr/bin/env bash
# Issue 25, what the session of 2026-12-02 (76 s of device time, no call made) leaves for the next.
# Carry .whl (jsonschema validates the recordings as they are written; AppTest needs streamlit).
#
# STEP=owed (about 360 s, one call): the two re-checks still owed (session17.sh STEP=rechecks), then
# pytest -m gpu on the files of the memset model. Then, here:
#   tar xzf <files_at>/rechecks_s17.tgz -C tests/gpu_runs/results
#   python tests/gpu_runs/merge_external.py lessons/recordings/diagnose_external_h200.json \
#     --rechecks tests/gpu_runs/results/rechecks_s17/*.json
#   python tests/gpu_runs/repredict.py lessons/recordings/diagnose_external_h200.json
#   run(command="STEP=owed bash tests/gpu_runs/session18.sh", carry=[".whl"], timeout_s=600)
#
# STEP=fresh (superseded by session19.sh STEP=fresh: this file's points kept no profile): the external grid again as a user runs it, one fresh
# `diagnose` process per point, with the code as it is now (19 H rounds spread over two seconds;
# the only fresh-process grid so far, diagnose_external_fresh_h200.json, has 33 points of five
# rounds back to back, and predicted 23 of 26 within ±15% re-predicted). 46-68 s a point, so 48
# points take two sessions' device time: commit the partial file after every call, and judge it
# with `python -m runtime_core accuracy --recording tests/gpu_runs/results/diagnose_external_fresh2_h200.json`.
#   run(command="STEP=fresh BUDGET_S=560 bash tests/gpu_runs/session18.sh", carry=[".whl"], timeout_s=600)
#   then here: cp <files_at>/diagnose_external_fresh2_h200.json tests/gpu_runs/results/ ; commit
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
case "${STEP:-owed}" in
  owed)
    STEP=rechecks BUDGET_S=300 bash tests/gpu_runs/session17.sh
    export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
    timeout $(( 590 - $(el) )) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_diagnose_gpu.py \
      tests/test_diagnose_external.py tests/test_node_mix.py tests/test_cores.py > "$OUT/gpu_tests.log" 2>&1
    echo "pytest rc=$? $(el) s"; tail -n 8 "$OUT/gpu_tests.log"
    ;;
  fresh)
    REC=tests/gpu_runs/results/diagnose_external_fresh2_h200.json bash tests/gpu_runs/session14_fresh_grid.sh
    ;;
  *) echo "STEP is owed or fresh" >&2; exit 2 ;;
esac
exit 0
