#!/usr/bin/env bash
# Issue 25, written in the twenty-seventh session (2026-12-07). One call does both, in this order:
#   1. the external grid's last 2 fresh points on the H200 (GPT-2 decode bf16 at batch 16 and 64): done in the
#      thirty-third session (complete, 48 of 48), skipped from then on and with CARD=h100;
#   2. the held-out public networks (validation/heldout.py: 10 networks outside the grid, fp32 batch 1
#      and bf16 batch 16, 20 points), one fresh `diagnose` process a point, resumed from the committed
#      copy, with what is left of TOTAL_S. Nothing in the prediction was changed after they were chosen.
#   run(command="bash tests/gpu_runs/session27.sh", kind="nvidia-h200", needs_h200=true, carry=[".whl"], timeout_s=600)
#   then: cp <files_at>/diagnose_external_freshN_h200.json tests/gpu_runs/results/ ;
#         cp <files_at>/diagnose_heldout_h200.json lessons/recordings/ ; commit;
#         python -m runtime_core accuracy --recording lessons/recordings/diagnose_heldout_h200.json
# The twenty-seventh session was lent no machine. The twenty-eighth (2026-12-07) got only an H100:
# TESTS=1 ran the two CLI tests (2 passed, gpu_tests_session27.log) and three calls recorded 16 of the
# H100's 20 held-out points. The twenty-ninth ran nothing. The thirtieth (2026-12-07) got an H100
# for `TESTS=1 CARD=h100`: the storm lab and one diagnosis end to end (2 passed,
# gpu_tests_session29.log) and the H100's last 4 held-out points (complete, 20 of 20, shipped as
# lessons/recordings/diagnose_heldout_h100.json). The thirty-first had fourteen H200 starts refused
# (its one machine, an H100, ran tests/gpu_runs/vit_probe.py); the thirty-second had eleven
# refused (its H100 ran TESTS=1 CARD=h100: 2 passed, results/gpu_tests_session32.log); the
# thirty-third had eleven refused (its H100 ran the recorder tests: 3 passed, gpu_tests_session33.log),
# then an H200 at its end: the grid's last 2 points (complete, 48 of 48) and held-out 2 of 20; the
# thirty-fourth had seven H200 starts refused, then an H200 for TESTS=1 (2 passed,
# results/gpu_tests_session34.log) and held-out points 3-11 in two calls; the thirty-fifth had seven
# H200 starts refused and spent its budget on the GPU suite on an H100. Still owed:
# the H200's part, the run line above (TESTS=1 is no longer needed; CARD=h100 now only finds its
# files complete). On a short budget, pass TOTAL_S (e.g. TOTAL_S=300), GRID_S (the grid's part, default
# 260 s) and a timeout_s a little above TOTAL_S.
# Decided before any held-out point was measured: the held-out recording is judged by the external
# grid's targets as they stand (no rule or constant changes for it), and once complete it joins
# `make check-gpu` (DIAGNOSE_RECS) whatever it shows.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
CARD=${CARD:-h200}
TOTAL_S=${TOTAL_S:-560}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$OUT/machine_s27.txt" 2>&1
# TESTS=1 (carry .whl): first the GPU tests of the changes on the CUDA path: the twenty-eighth
# session's storm verdict, which words bucketing's own evictions (runtime_core/labs/storm.py; the
# storm lab on a real GPU, seconds), and the twenty-ninth's verdict wording (diagnose/verdict.py
# `because`: H "took", not "needs"; one diagnosis end to end, about a minute). (The twenty-seventh
# session's two CLI tests passed on an H100 in the twenty-eighth: gpu_tests_session27.log; these two
# passed on an H100 in the thirtieth: gpu_tests_session29.log.)
if [ "${TESTS:-0}" = 1 ]; then
  if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
      && export PYTHONPATH=/tmp/site
  fi
  python3 -m pytest -m gpu -q -rfE -p no:cacheprovider --durations=4 \
    "tests/test_labs.py::test_every_lab_shows_its_signal_on_a_real_gpu[storm]" \
    "tests/test_diagnose_gpu.py::test_one_diagnosis_predicts_then_measures_every_fast_variant" \
    2>&1 | tee "$OUT/gpu_tests_session29.log" | tail -4
fi
GRID_DONE=$(python3 -c "import json; print(json.load(open('tests/gpu_runs/results/diagnose_external_freshN_h200.json'))['meta'].get('complete', False))" 2>/dev/null)
if [ "$CARD" = h200 ] && [ "$GRID_DONE" != True ]; then  # complete since the thirty-third session: skipped
  F=tests/gpu_runs/results/diagnose_external_freshN_h200.json
  cp "$F" "$OUT/"
  python3 -m runtime_core diagnose --set external --fresh-processes --gpus 1 --record "$OUT/$(basename "$F")" \
    --budget-s "${GRID_S:-260}" --resume 2>&1 | grep -v -i warn | tail -8
fi
H=lessons/recordings/diagnose_heldout_${CARD}.json  # shipped: page 7 shows the complete one
RESUME=""; if [ -f "$H" ]; then cp "$H" "$OUT/"; RESUME=--resume; fi
LEFT=$((TOTAL_S - SECONDS))
echo "held-out networks: $LEFT s left"
if [ "$LEFT" -gt 130 ]; then
  python3 -m runtime_core diagnose --set heldout --fresh-processes --gpus 1 --record "$OUT/$(basename "$H")" \
    --budget-s "$LEFT" $RESUME 2>&1 | grep -v -i warn | tail -30
fi
