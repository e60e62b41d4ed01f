#!/usr/bin/env bash
# Superseded (session 15): the 33 points in diagnose_external_fresh_h200.json timed H in 5 rounds back
# to back; the code now spreads 19 over two seconds, so a resumed file would mix two protocols. Record
# a new file (a point now takes 46-68 s: calibrate 14-21 s, profile 11-24 s, diagnose 12-21 s).
# Issue 25: the external grid recorded one fresh `diagnose` process per point (--fresh-processes),
# as a user runs it and as the outside check does. 48 points at 36-66 s each is more than
# one call: each call resumes the partial file committed under tests/gpu_runs/results/ and stops
# before its budget (BUDGET_S=585 gives 9-12 points a call; 33 were recorded on 2026-12-01 in four
# calls). The H200 image has torchvision 0.26 and transformers 5.17; carry .whl for jsonschema (the
# recording is validated as it is written).
#   run(command="BUDGET_S=585 bash tests/gpu_runs/session14_fresh_grid.sh", carry=[".whl"], timeout_s=600)
# then here: cp <files_at>/diagnose_external_fresh_h200.json tests/gpu_runs/results/ ; commit; call again
# until it prints "complete": true; then judge it:
#   python -m runtime_core accuracy --recording tests/gpu_runs/results/diagnose_external_fresh_h200.json
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
REC=${REC:-tests/gpu_runs/results/diagnose_external_fresh_h200.json}  # session18.sh STEP=fresh: a new file
RESUME=""; [ -f "$REC" ] && RESUME=--resume
timeout "${TIMEOUT_S:-592}" python3 -m runtime_core diagnose --set external --fresh-processes --record "$REC" $RESUME \
  --budget-s "${BUDGET_S:-545}" > "$OUT/fresh_grid.out" 2> "$OUT/fresh_grid.log"
echo "rc=$?"; tail -n 4 "$OUT/fresh_grid.log"; grep -E '"(points|complete)"' "$OUT/fresh_grid.out"
cp -f "$REC" "$OUT/" 2>/dev/null
