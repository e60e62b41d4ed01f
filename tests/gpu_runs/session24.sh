#!/usr/bin/env bash
# Issue 25, ninth session (2026-12-04): does the eager step's pacing change its kernels' durations?
# STEP=queued (~3 min): queued_profile_probe.py on 14 points of the external grid (the graph step
# timed, then the step as captured profiled paced, as the diagnosis does, and queued behind a sleep).
#   run(command="STEP=queued bash tests/gpu_runs/session24.sh", timeout_s=600)
#   then: cp <files_at>/queued_profile_h200.json tests/gpu_runs/results/ ; commit
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
case "${STEP:-queued}" in
  queued)
    python3 tests/gpu_runs/queued_profile_probe.py "$OUT/queued_profile_h200.json" \
      gpt2_decode:1:bf16 gpt2_decode:1:fp32 gpt2_decode:64:bf16 gpt2_decode:64:fp32 \
      gpt2_prompt:1:bf16 gpt2_prompt:1:fp32 gpt2_prompt:4:bf16 bert_base:1:bf16 bert_base:1:fp32 \
      resnet18:1:fp32 efficientnet_b0:4:bf16 mobilenet_v3_small:16:fp32 resnet18:64:bf16 bert_base:16:fp32 \
      2>&1 | grep -v -i warn
    ;;
esac
