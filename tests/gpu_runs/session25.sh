#!/usr/bin/env bash
# Issue 25, tenth session (2026-12-04, late): no GPU was lent. The offline finding
# (tests/gpu_runs/process_mode.py): bf16 GPT-2 points replay their graphs 12-15% faster in the
# one-process grid than in a fresh `diagnose` process, on the same machine. Owed, in this order:
# STEP=mode (~6 min): process_mode_probe.py: a fresh child's readings, the in-process recorder
# over GPT-2 decode bf16 b4 first and again after four other points, the main process's readings,
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
