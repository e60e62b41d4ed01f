#!/usr/bin/env bash
# Issue 25, tenth session (2026-12-04, late): no GPU was lent. The offline finding
# (tests/gpu_runs/process_mode.py): bf16 GPT-2 points replay their graphs 12-15% faster in the
# one-process grid than in a fresh `diagnose` process, on the same machine. Owed, in this order:
# STEP=mode (~7 min): process_mode_probe.py: a fresh child's readings, the in-process recorder
# over GPT-2 decode bf16 b4 first and again after the prompt in fp32 and bf16, the main process's readings,
# a second fresh child. Its docstring says what each part asks.
#   run(command="STEP=mode bash tests/gpu_runs/session25.sh", timeout_s=600)
#   then: mkdir -p tests/gpu_runs/results/process_mode_<date>; cp <files_at>/* there; commit;
#         python3 tests/gpu_runs/process_mode_probe.py --summary tests/gpu_runs/results/process_mode_<date>
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
case "${STEP:-mode}" in
  mode)
    nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/machine.txt" 2>&1
    python3 tests/gpu_runs/process_mode_probe.py "$OUT" 2>&1 | grep -v -i warn | tail -60
    gzip -f "$OUT/sequence.json"
    ;;
esac
# STEP=freshgrid (on nvidia-h200-x4: ~20 min in two or three calls): the external grid as users run
# it, one fresh `diagnose` process a point, four at once (one a GPU, a quarter of the cores each).
# Record it only after the model change that STEP=mode points at is committed (out of sample).
#   run(command="STEP=freshgrid GPUS=4 BUDGET_S=540 bash tests/gpu_runs/session25.sh", kind="nvidia-h200-x4", timeout_s=600)
#   then: cp <files_at>/diagnose_external_fresh4_h200.json tests/gpu_runs/results/ ; commit; repeat until complete
case "${STEP:-mode}" in
  freshgrid)
    F=tests/gpu_runs/results/diagnose_external_fresh4_h200.json
    RESUME=""; if [ -f "$F" ]; then cp "$F" "$OUT/"; RESUME=--resume; fi
    nvidia-smi --query-gpu=index,driver_version,clocks.sm --format=csv > "$OUT/machine_fresh4.txt" 2>&1
    python3 -m runtime_core diagnose --set external --fresh-processes --gpus "${GPUS:-4}" \
      --record "$OUT/$(basename "$F")" --budget-s "${BUDGET_S:-540}" $RESUME 2>&1 | grep -v -i warn | tail -60
    ;;
esac
# STEP=tests (~6 min, carry .whl: jsonschema and its dependencies): pytest -m gpu, owed since the
# session of 2026-12-04 (late) changed GPU-side code without a GPU (CudaRunner.gpus, the recorder's
# --gpus path, RUNTIME_CORE_CPUS in the CLI).
#   run(command="STEP=tests bash tests/gpu_runs/session25.sh", carry=[".whl"], timeout_s=600)
#   then: cp <files_at>/gpu_tests_session25.log tests/gpu_runs/results/ ; commit; paste its last line
case "${STEP:-mode}" in
  tests)
    if ls .whl/*.whl >/dev/null 2>&1; then
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site
    fi
    set -o pipefail
    python3 -m pytest -m gpu -q -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests_session25.log" | tail -5
    ;;
esac
