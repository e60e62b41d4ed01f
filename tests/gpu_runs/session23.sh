#!/usr/bin/env bash
# Issue 25: the launch-time rule (commit 68ff7c5: each eager operation is ready when its profiled
# launch call returned, diagnosis.op_ready) on the GPU.
# Done on 2026-12-04 (eighth session, 1,631 s): STEP=bandgrid three times (the band grid complete,
# 48 of 48: the 12-03 band rule out of sample, 40 of 48 bands hold, a miss), STEP=decodemix three times
# (decoder_mix_h200.json). Owed: nothing by a rule; a new rule needs a new grid (README, GPU runs owed):
#   run(command="STEP=bandgrid BUDGET_S=540 bash tests/gpu_runs/session23.sh") with grid()'s file renamed
# Done on 2026-12-04 (seventh session): the last 4 re-checks, 14 band-grid points, STEP=tests (21 passed).
# Done on 2026-12-03 (sixth session): STEP=grid twice (the launch-time grid complete, 48 of 48),
# STEP=probe, and 8 of the 12 re-checks (STEP=rechecks). Owed next:
#   run(command="STEP=rechecks BUDGET_S=540 bash tests/gpu_runs/session23.sh", timeout_s=600)
#     (the last 4: GPT-2 prompt and decode, both dtypes, batch 4); then tar -xf as below
#   run(command="STEP=bandgrid BUDGET_S=540 bash tests/gpu_runs/session23.sh", timeout_s=600), three
#     or four calls: a new grid, diagnose_external_band_h200.json, recorded after the band's rule of
#     2026-12-03 (a long kernel's share, the sides as independent errors): its out-of-sample check;
#     then cp <files_at>/diagnose_external_band_h200.json tests/gpu_runs/results/ ; commit
#   STEP=tests (carry .whl): pytest -m gpu after that rule
# Done on 2026-12-03 (fifth session): STEP=first (the fresh grid to 47 of 48, launch_shares_h200.json
# 48 of 48, the launch times' GPU test), STEP=tests (21 passed), and 25 points of STEP=grid.
# STEP=grid (resumable, ~33 s a point): the rest of the grid that keeps its own launch times, the
# rule's out-of-sample check; two calls finish it:
#   run(command="STEP=grid BUDGET_S=540 bash tests/gpu_runs/session23.sh", timeout_s=600)
#   then: cp <files_at>/diagnose_external_launch_h200.json tests/gpu_runs/results/ ; commit
#   then (no GPU): python -m runtime_core accuracy --recording tests/gpu_runs/results/diagnose_external_launch_h200.json
# STEP=first: the fresh grid's last point (budget 150), then the launch shares (complete: nothing to
# add), then the GPU test of the launch times (carry .whl).
# STEP=shares: the rest of launch_shares_h200.json where a call did not reach every point.
# STEP=tests: pytest -m gpu on the diagnosis (carry .whl: jsonschema and its dependencies only).
# STEP=rechecks (resumable, ~100 s a point, three calls): the 12 fresh-process re-checks under the
# launch-time rule (every network and dtype at batch 4, one `diagnose` process each), kept in out/
# between calls on a warm machine and seeded from the committed folder:
#   run(command="STEP=rechecks BUDGET_S=540 bash tests/gpu_runs/session23.sh", timeout_s=600)
#   then: tar -xf <files_at>/rechecks_launch.tar -C tests/gpu_runs/results ; commit
# STEP=probe (~90 s, no carry): bias_gemm_probe.py, a node's and an eager gap's cost for GEMMs with a
# bias epilogue and SDPA's kernels (two processes); then cp <files_at>/bias_gemm_*_h200.json tests/gpu_runs/results/
# The in-sample preview (no GPU): python tests/gpu_runs/launch_shares.py apply \
#   tests/gpu_runs/results/diagnose_external_gap_h200.json tests/gpu_runs/results/launch_shares_h200.json OUT.json
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" out
wheels() {
  if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
      && export PYTHONPATH=/tmp/site
  fi
}
grid() {  # $1: the recording; its working copy in out/ survives between calls on a warm machine
  local rec=$1 work=out/$(basename "$1")
  [ -f "$work" ] || cp "$rec" "$work" 2>/dev/null
  python3 tests/gpu_runs/floor_grid.py "$work" "${2:-540}" 2>&1 | grep -v -i warn
  cp "$work" "$OUT/"
  python3 -m runtime_core accuracy --recording "$work" | tail -12
}
shares() {  # resumable: what a call finished is copied back here and carried into the next one
  cp tests/gpu_runs/results/launch_shares_h200.json "$OUT/" 2>/dev/null
  python3 tests/gpu_runs/launch_shares.py record "$OUT/launch_shares_h200.json" "$1" 2>&1 | grep -v -i warn
}
case "${STEP:-first}" in
  first)
    wheels
    grid tests/gpu_runs/results/diagnose_external_gap_h200.json 150
    shares 240
    set -o pipefail
    python3 -m pytest -m gpu -q -x -p no:cacheprovider tests/test_diagnose_gpu.py -k counted_kernels 2>&1 \
      | tee "$OUT/gpu_tests_session23.log" | tail -3
    ;;
  shares) shares "${BUDGET_S:-480}" ;;
  grid) grid tests/gpu_runs/results/diagnose_external_launch_h200.json "${BUDGET_S:-540}" ;;
  bandgrid) grid tests/gpu_runs/results/diagnose_external_band_h200.json "${BUDGET_S:-540}" ;;
  tests)
    wheels; set -o pipefail
    python3 -m pytest -m gpu -q -x -p no:cacheprovider ${TESTS:-tests/test_diagnose_gpu.py tests/test_stream_gaps.py} 2>&1 \
      | tee "$OUT/gpu_tests_session23.log" | tail -5
    ;;
  rechecks)
    mkdir -p out/rechecks_launch
    cp -n tests/gpu_runs/results/rechecks_launch/*.json out/rechecks_launch/ 2>/dev/null
    python3 tests/gpu_runs/floor_grid.py --rechecks out/rechecks_launch "${BUDGET_S:-540}" 2>&1 | grep -v -i warn
    tar -cf "$OUT/rechecks_launch.tar" -C out rechecks_launch
    ;;
  probe)
    python3 tests/gpu_runs/bias_gemm_probe.py graph "$OUT/bias_gemm_graph_h200.json" 2>&1 | grep -v -i -E "warn|^timed|^profiled"
    python3 tests/gpu_runs/bias_gemm_probe.py stream "$OUT/bias_gemm_stream_h200.json" 2>&1 | grep -v -i -E "warn|^timed"
    python3 tests/gpu_runs/bias_gemm_probe.py show "$OUT/bias_gemm_graph_h200.json" "$OUT/bias_gemm_stream_h200.json"
    ;;
  decodemix)  # ~2 min, no carry: a decoder layer of our own calls, per-node cost by dtype
    python3 tests/gpu_runs/decoder_mix_probe.py "$OUT/decoder_mix_h200.json" 2>&1 | grep -v -i warn
    ;;
  *) echo "STEP is first, shares, grid, bandgrid, rechecks, tests, probe or decodemix" >&2; exit 2 ;;
esac
exit 0
