#!/usr/bin/env bash
# GPU session 8 (device tool, kind nvidia-h200-x2, torch 2.11): the owed runs two at a time, one
# per GPU, each pinned to its own half of the cores so the timing runs do not share a core:
#   STEP=1  GPU 0: session6.sh (diagnose passes 2-3, its gpu tests, the node-gap probe)
#           GPU 1: session7.sh STEP=serving (the serving loop on CUDA)
#   STEP=2  GPU 0: session7.sh STEP=aot (cold/warm compile, AOT load, the reduce_overhead lab)
#           GPU 1: the whole `pytest -m gpu` (its own AOT cache, so the two never share one)
# Each side's files come back under $OUT/gpu0 and $OUT/gpu1, its console in $OUT/gpuN.out.
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/gpu0" "$OUT/gpu1"; START=$(date +%s)
. tests/gpu_runs/two_gpus.sh  # the wheels, and pin
nproc; python3 -c "import torch; print(torch.__version__, torch.cuda.device_count(), torch.cuda.get_device_name(0))"
case "${STEP:-1}" in
1)
  OUT="$OUT/gpu0" pin 0 bash tests/gpu_runs/session6.sh > "$OUT/gpu0.out" 2>&1 &
  OUT="$OUT/gpu1" STEP=serving pin 1 bash tests/gpu_runs/session7.sh > "$OUT/gpu1.out" 2>&1 &
  ;;
2)
  OUT="$OUT/gpu0" STEP=aot pin 0 bash tests/gpu_runs/session7.sh > "$OUT/gpu0.out" 2>&1 &
  RUNTIME_CORE_AOT_CACHE=/tmp/aot_pytest pin 1 timeout 540 python3 -m pytest -q -m gpu -rf -p no:cacheprovider \
    > "$OUT/gpu1.out" 2>&1 &
  ;;
esac
wait
for g in 0 1; do echo "===== GPU $g"; tail -40 "$OUT/gpu$g.out"; done
echo "=== done after $(( $(date +%s) - START )) s"
